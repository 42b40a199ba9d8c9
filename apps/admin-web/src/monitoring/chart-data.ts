import type { TotalPoint } from './live-telemetry';
import type { History } from './series-history';

export interface ChartData {
  /** Epoch seconds. */
  times: number[];
  /** Requests, 4xx and 5xx a second (or a minute). */
  traffic: (number | null)[][];
  /** p50, p95 and p99 in ms. */
  latency: (number | null)[][];
}

interface Row {
  requests: number;
  clientErrors: number | null;
  serverErrors: number;
  p50: number;
  p95: number;
  p99: number;
}

function fromHistory(history: History | undefined): Map<number, Row> {
  const rows = new Map<number, Row>();
  if (history === undefined) return rows;
  const at = (t: string): Row => {
    const key = Date.parse(t);
    let row = rows.get(key);
    // The series API has no 4xx metric: 4xx is known only for seconds the stream delivered.
    if (row === undefined) rows.set(key, (row = { requests: 0, clientErrors: null, serverErrors: 0, p50: 0, p95: 0, p99: 0 }));
    return row;
  };
  for (const p of history.requests) at(p.t).requests = p.value;
  for (const p of history.errors) at(p.t).serverErrors = p.value;
  for (const p of history.p50) at(p.t).p50 = p.value;
  for (const p of history.p95) at(p.t).p95 = p.value;
  for (const p of history.p99) at(p.t).p99 = p.value;
  return rows;
}

function toChart(rows: Map<number, Row>, fromMs: number, perSeconds: number): ChartData {
  const keys = [...rows.keys()].filter((t) => t >= fromMs).sort((a, b) => a - b);
  const list = keys.map((t) => rows.get(t) as Row);
  // A latency of 0 means no request in that interval: a gap, not a fast answer.
  const latency = (pick: (r: Row) => number) => list.map((r) => (r.requests === 0 ? null : pick(r)));
  return {
    times: keys.map((t) => t / 1000),
    traffic: [list.map((r) => r.requests / perSeconds), list.map((r) => (r.clientErrors === null ? null : r.clientErrors / perSeconds)), list.map((r) => r.serverErrors / perSeconds)],
    latency: [latency((r) => r.p50), latency((r) => r.p95), latency((r) => r.p99)],
  };
}

/** The last 15 minutes a second: the series API's history, overlaid by every second the stream delivered. */
export function lastQuarterHour(history: History | undefined, live: readonly TotalPoint[], nowMs: number): ChartData {
  const rows = fromHistory(history);
  for (const p of live) rows.set(p.t, { requests: p.requests, clientErrors: p.clientErrors, serverErrors: p.serverErrors, p50: p.p50, p95: p.p95, p99: p.p99 });
  return toChart(rows, nowMs - 15 * 60_000, 1);
}

/** The last hour a minute, from the series API; rates per second. */
export function lastHour(history: History | undefined, nowMs: number): ChartData {
  return toChart(fromHistory(history), nowMs - 60 * 60_000, 60);
}
