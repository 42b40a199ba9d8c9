import { effect, signal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api } from '../api/api-client';
import type { SeriesMetric, SeriesPoint } from '../api/api-types';
import { session } from '../session/session.state';

export const HISTORY_METRICS = ['requests', 'errors', 'p50', 'p95', 'p99'] as const satisfies readonly SeriesMetric[];
export type HistoryMetric = (typeof HISTORY_METRICS)[number];
export type History = Record<HistoryMetric, SeriesPoint[]>;

interface Loaded {
  history: History | undefined;
  error: string | undefined;
  loadedAt: number;
}

const STEPS = {
  /** The last 15 minutes a second: loaded once a session, the stream extends it from then on. */
  '1s': { reachMs: 15 * 60_000, reloadAfterMs: Number.POSITIVE_INFINITY },
  /** The last hour a minute: reloaded once a minute while shown (a minute closes once a minute). */
  '1m': { reachMs: 60 * 60_000, reloadAfterMs: 60_000 },
} as const;
export type HistoryStep = keyof typeof STEPS;

const loaded = { '1s': signal<Loaded | undefined>(undefined), '1m': signal<Loaded | undefined>(undefined) };
const inFlight = new Set<HistoryStep>();

/** The cluster's history at `step` from GET /api/monitoring/series, one request per metric. */
export function useSeriesHistory(step: HistoryStep): Loaded | undefined {
  useEffect(() => {
    const load = (): void => {
      const current = loaded[step].value;
      if (inFlight.has(step) || (current?.history !== undefined && Date.now() - current.loadedAt < STEPS[step].reloadAfterMs)) return;
      inFlight.add(step);
      const from = Date.now() - STEPS[step].reachMs;
      Promise.all(HISTORY_METRICS.map((metric) => api.monitoringSeries(metric, step, from))).then(
        (lists) => {
          const history = Object.fromEntries(HISTORY_METRICS.map((metric, i) => [metric, lists[i] ?? []])) as History;
          loaded[step].value = { history, error: undefined, loadedAt: Date.now() };
        },
        (error: unknown) => {
          loaded[step].value = { history: current?.history, error: error instanceof Error ? error.message : String(error), loadedAt: Date.now() };
        },
      ).finally(() => inFlight.delete(step));
    };
    load();
    if (!Number.isFinite(STEPS[step].reloadAfterMs)) return undefined;
    const timer = setInterval(load, STEPS[step].reloadAfterMs);
    return () => clearInterval(timer);
  }, [step]);
  return loaded[step].value;
}

// Nothing of a previous session is shown to the next one.
effect(() => {
  if (session.value.status === 'signed-in') return;
  loaded['1s'].value = undefined;
  loaded['1m'].value = undefined;
});
