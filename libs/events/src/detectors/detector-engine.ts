import { createHash } from 'node:crypto';
import type { Detector, DetectorContext, OpenIncident, Signal } from './detector';
import type { DetectorEvent, DetectorKind, EventSeverity } from './detector-event.types';
import { isRecord, pushBounded } from './detector-state';
import { RECOVERY_CALM_RATIO } from './recovery-signal.detector';
import { durationMs, EventSettingsResolver, type EventSettings } from './event-settings.types';
import type { TrafficTick } from './traffic-tick';

/** A breaker OPEN on a route mutes these kinds on it (Alertmanager's inhibition): the cause is known. */
export const MUTED_BY_OPEN_BREAKER: ReadonlySet<DetectorKind> = new Set(['ERROR_RATE_SPIKE', 'LATENCY_ANOMALY']);
/** Open incidents kept at most; past it the oldest is dropped (a flood must not grow the state without bound). */
export const MAX_OPEN_INCIDENTS = 10_000;
const RECENT_RATIOS = 20;
const SEVERITY_RANK: Record<EventSeverity, number> = { INFO: 0, WARNING: 1, CRITICAL: 2 };

/** An event to store, stream and deliver. Its id is derived from the incident, so instances that evaluate the same tick agree on it. */
export interface EmittedEvent {
  id: string;
  /** Epoch ms: the end of the evaluated tick. */
  at: number;
  incidentId: string;
  /** The incident's fingerprint (`<kind>:<subject>`). */
  fingerprint: string;
  routeId?: string;
  /** Why it was emitted: an incident opened, escalated, or recovered. */
  reason: 'opened' | 'escalated' | 'recovered';
  event: DetectorEvent;
}

/** What the engine persists: each detector's state, the open incidents and when each route's breaker was last seen OPEN. */
export interface EngineState {
  detectors: Record<string, unknown>;
  incidents: OpenIncident[];
  breakerOpenAt: Record<string, number>;
}

export interface EvaluationInput {
  /** Routes whose breaker opened since the last evaluation (circuit_breaker.opened events), besides the tick's own breaker states. */
  openedBreakerRoutes?: Iterable<string>;
  hostMemoryLimitBytes: number;
}

export interface EvaluationResult {
  events: EmittedEvent[];
  /** Breaching signals dropped because the route's breaker is open. */
  muted: number;
}

function hashId(prefix: string, ...parts: Array<string | number>): string {
  return `${prefix}_${createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 32)}`;
}

/**
 * Runs the detectors on each tick and turns their signals into events, written once for every
 * detector: one incident per fingerprint (a sustained breach emits once, then only when its
 * severity rises), breaker inhibition, and the closing of incidents by RECOVERY_SIGNAL. Pure apart
 * from its state, which the caller persists (`snapshot`/`restore`) so baselines survive a restart.
 */
export class DetectorEngine {
  private readonly states = new Map<DetectorKind, unknown>();
  private incidents = new Map<string, OpenIncident>();
  private breakerOpenAt = new Map<string, number>();
  private resolver: EventSettingsResolver;

  constructor(
    private readonly detectors: readonly Detector[],
    private settings: EventSettings,
  ) {
    this.resolver = new EventSettingsResolver(settings);
    for (const detector of detectors) this.states.set(detector.kind, detector.initialState());
  }

  /** New thresholds apply from the next evaluation; baselines and incidents stay. */
  configure(settings: EventSettings): void {
    this.settings = settings;
    this.resolver = new EventSettingsResolver(settings);
  }

  openIncidents(): OpenIncident[] {
    return [...this.incidents.values()];
  }

  snapshot(): EngineState {
    return { detectors: Object.fromEntries(this.states), incidents: this.openIncidents(), breakerOpenAt: Object.fromEntries(this.breakerOpenAt) };
  }

  /** Loads a persisted state; a detector whose stored state is unusable starts over (named in the answer). */
  restore(stored: unknown): { restored: DetectorKind[]; reset: DetectorKind[] } {
    const restored: DetectorKind[] = [];
    const reset: DetectorKind[] = [];
    const detectorStates = isRecord(stored) && isRecord(stored['detectors']) ? stored['detectors'] : {};
    for (const detector of this.detectors) {
      const state = detector.restoreState(detectorStates[detector.kind]);
      if (state === undefined) {
        this.states.set(detector.kind, detector.initialState());
        reset.push(detector.kind);
      } else {
        this.states.set(detector.kind, state);
        restored.push(detector.kind);
      }
    }
    this.incidents = new Map();
    const incidents = isRecord(stored) && Array.isArray(stored['incidents']) ? stored['incidents'] : [];
    for (const incident of incidents) if (isIncident(incident)) this.incidents.set(incident.fingerprint, incident);
    this.breakerOpenAt = new Map();
    const openAt = isRecord(stored) && isRecord(stored['breakerOpenAt']) ? stored['breakerOpenAt'] : {};
    for (const [routeId, at] of Object.entries(openAt)) if (typeof at === 'number') this.breakerOpenAt.set(routeId, at);
    return { restored, reset };
  }

  evaluate(tick: TrafficTick, input: EvaluationInput): EvaluationResult {
    const at = tick.start + tick.durationMs;
    const muted = this.mutedRoutes(tick, input, at);
    const context = (): DetectorContext => ({ settings: this.settings, resolver: this.resolver, incidents: this.openIncidents(), hostMemoryLimitBytes: input.hostMemoryLimitBytes });

    const events: EmittedEvent[] = [];
    let mutedCount = 0;
    const touched = new Set<string>();
    for (const detector of this.detectors) {
      if (detector.kind === 'RECOVERY_SIGNAL') continue;
      for (const signal of detector.evaluate(tick, this.states.get(detector.kind), context())) {
        touched.add(signal.fingerprint);
        if (signal.event !== undefined && signal.routeId !== undefined && muted.has(signal.routeId) && MUTED_BY_OPEN_BREAKER.has(signal.event.type)) {
          mutedCount++;
          delete signal.event;
        }
        const emitted = this.track(signal, at);
        if (emitted !== undefined) events.push(emitted);
      }
    }
    for (const incident of this.incidents.values()) {
      if (touched.has(incident.fingerprint)) continue;
      // No signal at all (no traffic on the route): nothing is breaching.
      incident.quietWindows++;
      pushBounded(incident.recentRatios, 0, RECENT_RATIOS);
    }
    for (const detector of this.detectors) {
      if (detector.kind !== 'RECOVERY_SIGNAL') continue;
      for (const signal of detector.evaluate(tick, this.states.get(detector.kind), context())) {
        const fingerprint = signal.fingerprint.slice('RECOVERY_SIGNAL:'.length);
        const incident = this.incidents.get(fingerprint);
        if (incident === undefined || signal.event === undefined) continue;
        this.incidents.delete(fingerprint);
        events.push({ id: hashId('evt', incident.id, 'recovered'), at, incidentId: incident.id, fingerprint: `RECOVERY_SIGNAL:${incident.fingerprint}`, ...routeOf(incident), reason: 'recovered', event: signal.event });
      }
    }
    // Incidents nothing recovers (a cost budget) close once quiet as long.
    for (const [fingerprint, incident] of this.incidents) if (incident.quietWindows >= this.settings.recovery.quietWindows && incident.kind === 'COST_ALERT') this.incidents.delete(fingerprint);
    return { events, muted: mutedCount };
  }

  /** Routes whose breaker was OPEN within `breakerMuteHold`: their error and latency events are muted. */
  private mutedRoutes(tick: TrafficTick, input: EvaluationInput, at: number): Set<string> {
    for (const route of tick.routes) if (route.breaker === 'OPEN') this.breakerOpenAt.set(route.routeId, at);
    for (const routeId of input.openedBreakerRoutes ?? []) this.breakerOpenAt.set(routeId, at);
    const holdFrom = at - durationMs(this.settings.breakerMuteHold, 120_000);
    const muted = new Set<string>();
    for (const [routeId, openAt] of this.breakerOpenAt) {
      if (openAt >= holdFrom) muted.add(routeId);
      else this.breakerOpenAt.delete(routeId);
    }
    return muted;
  }

  private track(signal: Signal, at: number): EmittedEvent | undefined {
    const incident = this.incidents.get(signal.fingerprint);
    if (signal.event === undefined) {
      if (incident !== undefined) {
        incident.quietWindows = nextQuiet(incident.quietWindows, signal.ratio);
        pushBounded(incident.recentRatios, signal.ratio, RECENT_RATIOS);
      }
      return undefined;
    }
    const event = signal.event;
    if (incident === undefined) {
      const id = hashId('inc', signal.fingerprint, at);
      event.context = { ...event.context, incident_id: id };
      const opened: OpenIncident = { id, fingerprint: signal.fingerprint, kind: event.type, ...routeOf(signal), openedAt: at, severity: event.severity, event, quietWindows: 0, recentRatios: [signal.ratio] };
      this.incidents.set(signal.fingerprint, opened);
      if (this.incidents.size > MAX_OPEN_INCIDENTS) this.incidents.delete(this.incidents.keys().next().value as string);
      return { id: hashId('evt', id, 'opened'), at, incidentId: id, fingerprint: signal.fingerprint, ...routeOf(signal), reason: 'opened', event };
    }
    incident.quietWindows = 0;
    pushBounded(incident.recentRatios, signal.ratio, RECENT_RATIOS);
    if (SEVERITY_RANK[event.severity] <= SEVERITY_RANK[incident.severity]) return undefined;
    event.context = { ...event.context, incident_id: incident.id, escalated_from: incident.severity };
    incident.severity = event.severity;
    incident.event = event;
    return { id: hashId('evt', incident.id, 'escalated', event.severity), at, incidentId: incident.id, fingerprint: signal.fingerprint, ...routeOf(signal), reason: 'escalated', event };
  }
}

/**
 * Hysteresis: past the level (not confirmed this time: persistence, confidence) starts the count
 * over; near it (80-100 %) holds it; only well inside the normal band counts as quiet, so a metric
 * hovering at its threshold is one incident, not one per crossing.
 */
function nextQuiet(quiet: number, ratio: number): number {
  if (ratio >= 1) return 0;
  return ratio >= RECOVERY_CALM_RATIO ? quiet : quiet + 1;
}

function routeOf(source: { routeId?: string }): { routeId?: string } {
  return source.routeId === undefined ? {} : { routeId: source.routeId };
}

function isIncident(value: unknown): value is OpenIncident {
  return (
    isRecord(value) &&
    typeof value['id'] === 'string' &&
    typeof value['fingerprint'] === 'string' &&
    typeof value['kind'] === 'string' &&
    typeof value['openedAt'] === 'number' &&
    typeof value['severity'] === 'string' &&
    isRecord(value['event']) &&
    typeof value['quietWindows'] === 'number' &&
    Array.isArray(value['recentRatios'])
  );
}
