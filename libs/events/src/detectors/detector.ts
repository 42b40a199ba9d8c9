import type { DetectorEvent, DetectorKind } from './detector-event.types';
import type { EventSettings, EventSettingsResolver } from './event-settings.types';
import type { TrafficTick } from './traffic-tick';

/**
 * What a detector sees of one subject (a route, an upstream, a process) in one evaluation. Every
 * subject the detector judged is reported, breaching or not, so the shared incident tracking can
 * tell a breach that goes on from one that ended (and RECOVERY_SIGNAL can judge the recovery).
 */
export interface Signal {
  /** One incident per fingerprint: `<kind>:<subject>` (e.g. `ERROR_RATE_SPIKE:route:orders`). */
  fingerprint: string;
  /** The route the signal is about, when it is about one (breaker muting, event filters). */
  routeId?: string;
  /** current_value / threshold: above 1 is a breach of the level (0 when there is nothing to judge). */
  ratio: number;
  /** Present when the detector fires: the spec 6.1 event. */
  event?: DetectorEvent;
}

/** An incident still open (read by RECOVERY_SIGNAL). */
export interface OpenIncident {
  id: string;
  fingerprint: string;
  kind: DetectorKind;
  routeId?: string;
  openedAt: number;
  severity: DetectorEvent['severity'];
  /** The event that opened or last escalated it. */
  event: DetectorEvent;
  /** Consecutive evaluations without a breach. */
  quietWindows: number;
  /** breach ratios of the latest evaluations (newest last, at most 20). */
  recentRatios: number[];
}

export interface DetectorContext {
  readonly settings: EventSettings;
  readonly resolver: EventSettingsResolver;
  /** Open incidents of every detector, oldest first. */
  readonly incidents: readonly OpenIncident[];
  /** Memory limit processes are judged against when the settings leave it to the host. */
  readonly hostMemoryLimitBytes: number;
}

/**
 * A detector (spec 6.1): one file `<kind>.detector.ts`, one of these. It reads one tick, updates
 * its own state (baselines, rolling windows: plain JSON, persisted by the caller so it survives a
 * restart) and returns its signals. Deduplication, muting, storing and delivery are shared.
 */
export interface Detector<S = unknown> {
  readonly kind: DetectorKind;
  initialState(): S;
  /** A state read back from storage, or undefined when it is not usable (the detector starts over). */
  restoreState(stored: unknown): S | undefined;
  evaluate(tick: TrafficTick, state: S, context: DetectorContext): Signal[];
}
