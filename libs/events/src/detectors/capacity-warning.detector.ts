import type { Detector, Signal } from './detector';
import { isNumberArray, isRecord, pushBounded, restoreRecord } from './detector-state';
import type { CapacitySettings } from './event-settings.types';
import type { ProcessTick } from './traffic-tick';
import { round } from './stats';

/** Evaluations the confidence looks back on. */
export const CAPACITY_HISTORY = 6;

export type ResourceType = 'MEMORY' | 'EVENT_LOOP' | 'CONNECTIONS';

export interface CapacityState {
  /** Per `<instance>:<resource>`: 1/0 per evaluation (above the level or not), newest last. */
  history: Record<string, number[]>;
}

/** The share of the last CAPACITY_HISTORY evaluations in which the gauge was above its level. */
export function capacityConfidence(history: readonly number[]): number {
  const recent = history.slice(-CAPACITY_HISTORY);
  return recent.reduce((sum, above) => sum + above, 0) / CAPACITY_HISTORY;
}

interface Gauge {
  resourceType: ResourceType;
  value: number;
  level: number;
  unit: string;
  limit: number;
}

function gauges(process: ProcessTick, settings: CapacitySettings, memoryLimit: number): Gauge[] {
  return [
    { resourceType: 'MEMORY', value: process.rssBytes, level: (settings.memoryPercent / 100) * memoryLimit, unit: 'bytes', limit: memoryLimit },
    { resourceType: 'EVENT_LOOP', value: process.eventLoopLagMs, level: settings.eventLoopLagMs, unit: 'ms', limit: settings.eventLoopLagMs },
    { resourceType: 'CONNECTIONS', value: process.openConnections, level: (settings.connectionsPercent / 100) * settings.maxConnections, unit: 'connections', limit: settings.maxConnections },
  ];
}

/**
 * CAPACITY_WARNING: a data plane or control plane near a resource limit for `persistence`
 * consecutive evaluations: resident memory at `memoryPercent` of the limit (`resourceType`
 * MEMORY), event-loop delay p99 at `eventLoopLagMs` (EVENT_LOOP), open client connections at
 * `connectionsPercent` of `maxConnections` (CONNECTIONS). confidence = the share of the last six
 * evaluations in which the gauge was above its level.
 */
export const capacityWarningDetector: Detector<CapacityState> = {
  kind: 'CAPACITY_WARNING',
  initialState: () => ({ history: {} }),
  restoreState(stored) {
    const history = isRecord(stored) ? restoreRecord(stored['history'], isNumberArray) : undefined;
    return history === undefined ? undefined : { history };
  },
  evaluate(tick, state, context) {
    const settings = context.settings.capacity;
    const memoryLimit = settings.memoryLimitBytes ?? context.hostMemoryLimitBytes;
    const signals: Signal[] = [];
    const seen = new Set<string>();
    for (const process of tick.processes) {
      for (const gauge of gauges(process, settings, memoryLimit)) {
        const key = `${process.instanceId}:${gauge.resourceType}`;
        seen.add(key);
        const history = (state.history[key] ??= []);
        const above = gauge.level > 0 && gauge.value >= gauge.level;
        pushBounded(history, above ? 1 : 0, CAPACITY_HISTORY);
        const ratio = gauge.level > 0 ? gauge.value / gauge.level : 0;
        const signal: Signal = { fingerprint: `CAPACITY_WARNING:${process.role}:${key}`, ratio };
        const streak = history.length - 1 - history.lastIndexOf(0);
        if (above && streak >= settings.persistence) {
          signal.event = {
            type: 'CAPACITY_WARNING',
            severity: gauge.value >= gauge.limit ? 'CRITICAL' : 'WARNING',
            summary: `${process.role === 'data-plane' ? 'Data plane' : 'Control plane'} ${process.instanceId}: ${gauge.resourceType} at ${round(gauge.value, 1)} ${gauge.unit}, level ${round(gauge.level, 1)}`,
            confidence: round(capacityConfidence(history)),
            data: { current_value: round(gauge.value, 2), threshold: round(gauge.level, 2), breach_ratio: round(ratio, 3), trend: 'RISING' },
            context: { resourceType: gauge.resourceType, instanceId: process.instanceId, role: process.role, limit: gauge.limit },
          };
          if (history.length >= 2) signal.event.data.trend = gaugeTrend(history);
        }
        signals.push(signal);
      }
    }
    for (const key of Object.keys(state.history)) if (!seen.has(key)) delete state.history[key];
    return signals;
  },
};

/** Breaching longer than the history: STABLE; newly breaching: RISING. */
function gaugeTrend(history: readonly number[]): 'RISING' | 'STABLE' {
  return history.every((above) => above === 1) ? 'STABLE' : 'RISING';
}
