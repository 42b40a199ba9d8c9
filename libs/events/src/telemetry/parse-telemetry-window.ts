import { LATENCY_BUCKETS } from './latency-sketch';
import {
  REQUEST_OUTCOMES,
  STATUS_CLASSES,
  TELEMETRY_WIRE_VERSION,
  type LatencySketchWire,
  type ProcessGauges,
  type RouteWindow,
  type TelemetryWindow,
  type TopKeyWire,
  type TrafficCounts,
  type UpstreamWindow,
} from './telemetry-window.types';
import type { BreakerState, HealthIndicator } from '../resilience-status.types';

/** Bounds a window must respect: a signed but buggy or hostile sender must not make a receiver allocate without limit. */
export const TELEMETRY_WINDOW_LIMITS = {
  routes: 20_000,
  upstreams: 5_000,
  topKeys: 100,
  idLength: 512,
} as const;

const BREAKER_STATES: readonly BreakerState[] = ['CLOSED', 'OPEN', 'HALF_OPEN'];
const HEALTH_INDICATORS: readonly HealthIndicator[] = ['Healthy', 'Degraded', 'Unhealthy', 'Unknown'];

/** A window that does not have the wire shape; `field` names the first offending field. */
export class TelemetryWindowError extends Error {
  constructor(
    readonly field: string,
    problem: string,
  ) {
    super(`telemetry window: ${field} ${problem}`);
    this.name = 'TelemetryWindowError';
  }
}

type Fields = Record<string, unknown>;

function object(value: unknown, field: string): Fields {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new TelemetryWindowError(field, 'must be an object');
  return value as Fields;
}

function count(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw new TelemetryWindowError(field, 'must be a non-negative integer');
  return value;
}

function amount(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new TelemetryWindowError(field, 'must be a finite non-negative number');
  return value;
}

function text(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > TELEMETRY_WINDOW_LIMITS.idLength) {
    throw new TelemetryWindowError(field, `must be a string of 1 to ${TELEMETRY_WINDOW_LIMITS.idLength} characters`);
  }
  return value;
}

function list(value: unknown, field: string, max: number): unknown[] {
  if (!Array.isArray(value)) throw new TelemetryWindowError(field, 'must be an array');
  if (value.length > max) throw new TelemetryWindowError(field, `must have at most ${max} entries`);
  return value;
}

function counts<T extends number[]>(value: unknown, field: string, names: readonly string[]): T {
  const items = list(value, field, names.length);
  if (items.length !== names.length) throw new TelemetryWindowError(field, `must have ${names.length} entries (${names.join(', ')})`);
  return items.map((n, i) => count(n, `${field}[${i}]`)) as T;
}

function oneOf<T extends string>(value: unknown, field: string, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (!allowed.includes(value as T)) throw new TelemetryWindowError(field, `must be one of ${allowed.join(', ')}`);
  return value as T;
}

function latency(value: unknown, field: string): LatencySketchWire {
  const o = object(value, field);
  const buckets = list(o.buckets, `${field}.buckets`, LATENCY_BUCKETS * 2);
  if (buckets.length % 2 !== 0) throw new TelemetryWindowError(`${field}.buckets`, 'must hold [gap, count] pairs');
  let index = 0;
  let inBuckets = 0;
  for (let i = 0; i < buckets.length; i += 2) {
    const gap = count(buckets[i], `${field}.buckets[${i}]`);
    index += gap;
    if (gap === 0 || index >= LATENCY_BUCKETS) throw new TelemetryWindowError(`${field}.buckets[${i}]`, `must be a positive gap to a bucket index below ${LATENCY_BUCKETS}`);
    const n = count(buckets[i + 1], `${field}.buckets[${i + 1}]`);
    if (n === 0) throw new TelemetryWindowError(`${field}.buckets[${i + 1}]`, 'must be positive (only non-zero buckets are sent)');
    inBuckets += n;
  }
  const zero = count(o.zero, `${field}.zero`);
  const total = count(o.count, `${field}.count`);
  if (total !== zero + inBuckets) throw new TelemetryWindowError(`${field}.count`, 'must equal zero plus the bucket counts');
  return { count: total, sumMs: amount(o.sumMs, `${field}.sumMs`), zero, buckets: buckets as number[] };
}

function traffic(o: Fields, field: string): TrafficCounts {
  return {
    requests: count(o.requests, `${field}.requests`),
    statusClasses: counts(o.statusClasses, `${field}.statusClasses`, STATUS_CLASSES),
    outcomes: counts(o.outcomes, `${field}.outcomes`, REQUEST_OUTCOMES),
    retries: count(o.retries, `${field}.retries`),
    bytesIn: count(o.bytesIn, `${field}.bytesIn`),
    bytesOut: count(o.bytesOut, `${field}.bytesOut`),
    latency: latency(o.latency, `${field}.latency`),
  };
}

function topKey(value: unknown, field: string): TopKeyWire {
  const o = object(value, field);
  return {
    key: text(o.key, `${field}.key`),
    count: count(o.count, `${field}.count`),
    rejections: count(o.rejections, `${field}.rejections`),
    error: count(o.error, `${field}.error`),
  };
}

/** The optional breaker state and health of a route or upstream, present only when sent. */
function resilience(o: Fields, field: string): { breaker?: BreakerState; health?: HealthIndicator } {
  const breaker = oneOf(o.breaker, `${field}.breaker`, BREAKER_STATES);
  const health = oneOf(o.health, `${field}.health`, HEALTH_INDICATORS);
  return { ...(breaker === undefined ? {} : { breaker }), ...(health === undefined ? {} : { health }) };
}

function routeWindow(value: unknown, field: string): RouteWindow {
  const o = object(value, field);
  const route: RouteWindow = { routeId: text(o.routeId, `${field}.routeId`), ...traffic(o, field), ...resilience(o, field) };
  if (o.topKeys !== undefined) route.topKeys = list(o.topKeys, `${field}.topKeys`, TELEMETRY_WINDOW_LIMITS.topKeys).map((k, i) => topKey(k, `${field}.topKeys[${i}]`));
  return route;
}

function upstreamWindow(value: unknown, field: string): UpstreamWindow {
  const o = object(value, field);
  return { upstream: text(o.upstream, `${field}.upstream`), ...traffic(o, field), ...resilience(o, field) };
}

function gauges(value: unknown, field: string): ProcessGauges {
  const o = object(value, field);
  return {
    heapUsedBytes: count(o.heapUsedBytes, `${field}.heapUsedBytes`),
    rssBytes: count(o.rssBytes, `${field}.rssBytes`),
    eventLoopLagMs: amount(o.eventLoopLagMs, `${field}.eventLoopLagMs`),
    openConnections: count(o.openConnections, `${field}.openConnections`),
  };
}

/**
 * Checks a window received from the bus field by field and returns a typed copy; throws
 * TelemetryWindowError naming the first bad field. Unknown fields are not copied.
 */
export function parseTelemetryWindow(value: unknown): TelemetryWindow {
  const o = object(value, 'window');
  if (o.v !== TELEMETRY_WIRE_VERSION) throw new TelemetryWindowError('v', `must be ${TELEMETRY_WIRE_VERSION}`);
  const durationMs = count(o.durationMs, 'durationMs');
  if (durationMs === 0) throw new TelemetryWindowError('durationMs', 'must be positive');
  const start = count(o.start, 'start');
  if (start % durationMs !== 0) throw new TelemetryWindowError('start', 'must be a multiple of durationMs');
  return {
    v: TELEMETRY_WIRE_VERSION,
    instanceId: text(o.instanceId, 'instanceId'),
    start,
    durationMs,
    address: text(o.address, 'address'),
    version: text(o.version, 'version'),
    configRevision: count(o.configRevision, 'configRevision'),
    droppedWindows: count(o.droppedWindows, 'droppedWindows'),
    routes: list(o.routes, 'routes', TELEMETRY_WINDOW_LIMITS.routes).map((r, i) => routeWindow(r, `routes[${i}]`)),
    upstreams: list(o.upstreams, 'upstreams', TELEMETRY_WINDOW_LIMITS.upstreams).map((u, i) => upstreamWindow(u, `upstreams[${i}]`)),
    process: gauges(o.process, 'process'),
  };
}
