import type { Detector, OpenIncident, Signal } from './detector';
import { round, trendOf } from './stats';

/** A ratio below this (of the trigger level) counts as well inside the normal band. */
export const RECOVERY_CALM_RATIO = 0.8;

/** The share of the quiet evaluations whose measured value stayed below 80 % of the trigger level. */
export function recoveryConfidence(quietRatios: readonly number[]): number {
  if (quietRatios.length === 0) return 0;
  return quietRatios.filter((ratio) => ratio < RECOVERY_CALM_RATIO).length / quietRatios.length;
}

/** COST_ALERT closes quietly when its window or budget period rolls over: a spend does not "recover". */
const RECOVERABLE = new Set<OpenIncident['kind']>(['ERROR_RATE_SPIKE', 'LATENCY_ANOMALY', 'CIRCUIT_BREAKER_CANDIDATE', 'CAPACITY_WARNING']);

/**
 * RECOVERY_SIGNAL: an open incident's metric stayed below its trigger level for `quietWindows`
 * consecutive evaluations. Its context carries `recovery_status` (COMPLETE), `stability_assessment`
 * (STABLE when every quiet evaluation stayed below 80 % of the level, else UNSTABLE), `metrics`,
 * `actions_taken` (none yet: runbooks are a later issue), `regression_risk` (HIGH when the last
 * quiet evaluation was at 80 % of the level or more, MEDIUM from 50 %, else LOW) and `confidence`.
 * confidence = the share of the quiet evaluations below 80 % of the trigger level. Closes the incident.
 */
export const recoverySignalDetector: Detector<Record<string, never>> = {
  kind: 'RECOVERY_SIGNAL',
  initialState: () => ({}),
  restoreState: () => ({}),
  evaluate(tick, _state, context) {
    const signals: Signal[] = [];
    const quietWindows = context.settings.recovery.quietWindows;
    for (const incident of context.incidents) {
      if (!RECOVERABLE.has(incident.kind) || incident.quietWindows < quietWindows) continue;
      const quiet = incident.recentRatios.slice(-quietWindows);
      const confidence = round(recoveryConfidence(quiet));
      const latest = quiet[quiet.length - 1] ?? 0;
      const stable = quiet.every((ratio) => ratio < RECOVERY_CALM_RATIO);
      signals.push({
        fingerprint: `RECOVERY_SIGNAL:${incident.fingerprint}`,
        ...(incident.routeId === undefined ? {} : { routeId: incident.routeId }),
        ratio: latest,
        event: {
          type: 'RECOVERY_SIGNAL',
          severity: 'INFO',
          summary: `Recovered: ${incident.event.summary}`,
          confidence,
          data: {
            current_value: round(latest * incident.event.data.threshold, 4),
            threshold: incident.event.data.threshold,
            breach_ratio: round(latest, 3),
            trend: trendOf(quiet),
          },
          context: {
            incident_id: incident.id,
            incident_type: incident.kind,
            ...(incident.routeId === undefined ? {} : { route: incident.routeId }),
            recovery_status: 'COMPLETE',
            stability_assessment: stable ? 'STABLE' : 'UNSTABLE',
            metrics: { quiet_windows: quiet.length, breach_ratios: quiet.map((ratio) => round(ratio, 3)), incident_duration_ms: tick.start + tick.durationMs - incident.openedAt },
            actions_taken: [],
            regression_risk: latest >= RECOVERY_CALM_RATIO ? 'HIGH' : latest >= 0.5 ? 'MEDIUM' : 'LOW',
            confidence,
          },
        },
      });
    }
    return signals;
  },
};
