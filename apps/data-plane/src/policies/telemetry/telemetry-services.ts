import { serviceKey } from '../../engine/service-registry';
import type { TelemetryRegistry } from './telemetry-registry';

/** Per-route and per-upstream traffic tallies of the telemetry windows; not provided when telemetry is off. */
export const TELEMETRY_TALLIES = serviceKey<TelemetryRegistry>('telemetry.tallies');
