import { DETECTORS, DetectorEngine, type DetectorKind, type EmittedEvent } from '@gateway/events';
import type { TrafficScenario } from '@gateway/events/traffic-scenarios';

export interface IncidentOutcome {
  kind: DetectorKind;
  fingerprint: string;
  found: boolean;
  /** Evaluations between the metric passing its trigger level and the event (0: the same evaluation); null when missed. */
  delayWindows: number | null;
}

export interface ScenarioScore {
  scenario: string;
  days: number;
  evaluations: number;
  incidents: IncidentOutcome[];
  /** Opened incidents that match no injected one, per detector kind. */
  falsePositives: Partial<Record<DetectorKind, number>>;
  events: number;
  muted: number;
  /** Wall-clock ms the replay took (how much faster than real time). */
  elapsedMs: number;
}

/** An event opened before this long ahead of its incident's trigger moment is not that incident's detection. */
const EARLY_TOLERANCE_MS = 3_600_000;

/**
 * Feeds every tick of a scenario through the detectors (the engine the control plane runs) as
 * fast as it computes, and scores it: an injected incident is found when an event of its
 * fingerprint opens between an hour before its trigger moment and the end of the fault; every
 * other opened incident is a false positive. Escalations and recoveries are not new incidents.
 */
export function replayScenario(scenario: TrafficScenario): ScenarioScore {
  const started = performance.now();
  const engine = new DetectorEngine(DETECTORS, scenario.settings);
  const opened: EmittedEvent[] = [];
  let events = 0;
  let muted = 0;
  for (const tick of scenario.ticks) {
    const result = engine.evaluate(tick, { hostMemoryLimitBytes: 2 * 1024 ** 3 });
    events += result.events.length;
    muted += result.muted;
    for (const event of result.events) if (event.reason === 'opened') opened.push(event);
  }
  const claimed = new Set<EmittedEvent>();
  const incidents = scenario.incidents.map((incident): IncidentOutcome => {
    const match = opened.find(
      (event) => !claimed.has(event) && event.fingerprint === incident.fingerprint && event.at >= incident.triggerAt - EARLY_TOLERANCE_MS && event.at <= incident.endAt,
    );
    if (match === undefined) return { kind: incident.kind, fingerprint: incident.fingerprint, found: false, delayWindows: null };
    claimed.add(match);
    return { kind: incident.kind, fingerprint: incident.fingerprint, found: true, delayWindows: Math.max(0, Math.round((match.at - incident.triggerAt) / scenario.tickMs)) };
  });
  const falsePositives: Partial<Record<DetectorKind, number>> = {};
  for (const event of opened) if (!claimed.has(event)) falsePositives[event.event.type] = (falsePositives[event.event.type] ?? 0) + 1;
  return { scenario: scenario.name, days: scenario.days, evaluations: scenario.ticks.length, incidents, falsePositives, events, muted, elapsedMs: performance.now() - started };
}
