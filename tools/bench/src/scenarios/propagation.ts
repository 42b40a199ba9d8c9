import http from 'node:http';
import { BENCH_REDIS_URL, startBenchControlPlane, startBenchDataPlanes } from '../harness/cluster';
import { cpuTicks, machineBusyTicks, ticksToSeconds } from '../harness/cpu';
import { startBenchServer } from '../harness/processes';
import { formatGoal, formatNumber, markdownTable } from '../harness/report';
import { percentileOfSorted } from '../harness/stats';
import type { GoalCheck, HarnessContext, JsonValue, Scenario, ScenarioResult } from '../harness/types';

/** Measured creates (the issue's 200 changes), after WARMUP_CHANGES unmeasured ones. */
const CHANGES = 200;
const WARMUP_CHANGES = 10;
/** Path updates measured after the creates, reported on their own line (not part of the goal). */
const EXTRA_UPDATES = 100;
const DATA_PLANES = 2;
/** Pause between two polls of one data plane. */
const POLL_INTERVAL_MS = 2;
/** A change not served by a data plane within this long fails the scenario. */
const GIVE_UP_MS = 5000;
const GOAL_P99_BELOW_MS = 100;

/** One change: the create of a new route, or a PATCH moving an existing one to a new path. */
interface Change {
  readonly kind: 'create' | 'update';
  readonly method: 'POST' | 'PATCH';
  readonly apiPath: string;
  readonly body: Record<string, unknown>;
  /** Answered 404 by every data plane before the change, 200 (from the upstream) after it. */
  readonly probePath: string;
}

/** `POST /api/routes` of route `prop-<k>` on the new path `/prop-<k>/*` (the issue's measure). */
function createAt(k: number, upstreamOrigin: string): Change {
  return { kind: 'create', method: 'POST', apiPath: '/api/routes', body: { id: `prop-${k}`, path: `/prop-${k}/*`, upstream: upstreamOrigin }, probePath: `/prop-${k}/bytes/2` };
}

/** `PATCH /api/routes/prop-<k>` moving that (created) route to the new path `/moved-<k>/*`. */
function updateAt(k: number): Change {
  return { kind: 'update', method: 'PATCH', apiPath: `/api/routes/prop-${k}`, body: { path: `/moved-${k}/*` }, probePath: `/moved-${k}/bytes/2` };
}

/** Status of one GET on the given keep-alive agent, once its headers have arrived (the body is drained). */
function statusOf(origin: string, path: string, agent: http.Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(origin + path, { agent, timeout: GIVE_UP_MS }, (res) => {
      resolve(res.statusCode ?? 0);
      res.resume();
    });
    req.on('timeout', () => req.destroy(new Error(`${origin}${path} did not answer within ${GIVE_UP_MS} ms`)));
    req.on('error', reject);
  });
}

const msSince = (started: bigint): number => Number(process.hrtime.bigint() - started) / 1e6;

/** ms from `started` to the first 200 for `path` on this data plane, polling every POLL_INTERVAL_MS. */
async function firstOk(origin: string, path: string, agent: http.Agent, started: bigint): Promise<number> {
  for (;;) {
    const status = await statusOf(origin, path, agent);
    const elapsed = msSince(started);
    if (status === 200) return elapsed;
    if (status !== 404) throw new Error(`${origin}${path} answered ${status} while waiting for a change`);
    if (elapsed > GIVE_UP_MS) throw new Error(`${origin}${path} was not served within ${GIVE_UP_MS} ms of the change`);
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
  }
}

interface Sample {
  readonly change: number;
  readonly kind: Change['kind'];
  readonly apiMs: number;
  /** Per data plane: ms from sending the API request to its first 200. */
  readonly dataPlaneMs: readonly number[];
}

function summary(values: readonly number[]): { p50: number | undefined; p99: number | undefined; max: number | undefined } {
  const sorted = Float64Array.from(values).sort();
  return { p50: percentileOfSorted(sorted, 50), p99: percentileOfSorted(sorted, 99), max: sorted[sorted.length - 1] };
}

/**
 * Propagation latency through a real cluster: `gateway start --role control-plane` and two
 * `--role data-plane` processes over Redis. For each change, the time from sending the API request
 * to the first 200 through each data plane.
 */
export const propagationScenario: Scenario = {
  name: 'propagation',
  title: 'Route propagation: POST /api/routes to the first 200 through each of two data planes (Redis)',
  description:
    `A control plane and two data planes (processes) over Redis (BENCH_REDIS_URL, default redis://127.0.0.1:6379). ${CHANGES} changes, each a ` +
    `POST /api/routes of a new route on a new path, after ${WARMUP_CHANGES} unmeasured ones; for each, the time from sending the API request to the ` +
    `first 200 on the new path through each data plane (polled every ${POLL_INTERVAL_MS} ms on its own keep-alive connection). Then, reported ` +
    `apart, ${EXTRA_UPDATES} PATCHes moving created routes to new paths. Ignores --duration, --rounds and --connections. Goal: p99 of the ` +
    `creates (the later data plane of each) under ${GOAL_P99_BELOW_MS} ms.`,
  variantNames: ['cluster'],
  run: async (ctx: HarnessContext): Promise<ScenarioResult> => {
    const upstream = await startBenchServer(ctx.processes, 'upstream', 'upstream', [], ctx.options.profileDir);
    const cp = await startBenchControlPlane(ctx, 'control-plane', BENCH_REDIS_URL);
    const dataPlanes = await startBenchDataPlanes(ctx, cp, BENCH_REDIS_URL, DATA_PLANES);
    ctx.log(`control plane ${cp.process.origin} (pid ${cp.process.pid}); data planes ${dataPlanes.map((dp) => `${dp.origin} (pid ${dp.pid})`).join(', ')}; Redis ${BENCH_REDIS_URL}`);
    const agents = dataPlanes.map(() => new http.Agent({ keepAlive: true, maxSockets: 1 }));

    const measure = async (k: number, change: Change): Promise<Sample> => {
      const started = process.hrtime.bigint();
      const api = cp.api.call(change.method, change.apiPath, change.body).then((res) => {
        const expected = change.kind === 'create' ? 201 : 200;
        if (res.status !== expected) throw new Error(`${change.method} ${change.apiPath} answered ${res.status}: ${res.text}`);
        return msSince(started);
      });
      const [apiMs, ...dataPlaneMs] = await Promise.all([api, ...dataPlanes.map((dp, i) => firstOk(dp.origin, change.probePath, agents[i] as http.Agent, started))]);
      return { change: k, kind: change.kind, apiMs, dataPlaneMs };
    };

    ctx.log(`${WARMUP_CHANGES} warm-up creates`);
    for (let k = 0; k < WARMUP_CHANGES; k += 1) await measure(k, createAt(k, upstream.origin));
    ctx.log(`${CHANGES} measured creates`);
    const pids = [cp.process.pid, ...dataPlanes.map((dp) => dp.pid)];
    const cpuBefore = pids.map(cpuTicks);
    const machineBefore = machineBusyTicks();
    const ownBefore = process.cpuUsage();
    const wallStarted = process.hrtime.bigint();
    const samples: Sample[] = [];
    for (let k = WARMUP_CHANGES; k < WARMUP_CHANGES + CHANGES; k += 1) samples.push(await measure(k, createAt(k, upstream.origin)));
    const wallSeconds = msSince(wallStarted) / 1000;
    const own = process.cpuUsage(ownBefore);
    const ownSeconds = (own.user + own.system) / 1e6;
    const clusterSeconds = pids.map((pid, i) => ticksToSeconds(cpuTicks(pid) - (cpuBefore[i] as number)));
    const otherSeconds = Math.max(0, ticksToSeconds(machineBusyTicks() - machineBefore) - ownSeconds - clusterSeconds.reduce((a, b) => a + b, 0));
    ctx.log(`${EXTRA_UPDATES} path updates (reported apart)`);
    const updates: Sample[] = [];
    for (let k = WARMUP_CHANGES; k < WARMUP_CHANGES + EXTRA_UPDATES; k += 1) updates.push(await measure(k, updateAt(k)));
    agents.forEach((agent) => agent.destroy());

    const rows = [
      ...dataPlanes.map((_, i) => ({ label: `data plane ${i + 1}`, values: samples.map((s) => s.dataPlaneMs[i] as number) })),
      { label: 'both (the later data plane of each change)', values: samples.map((s) => Math.max(...s.dataPlaneMs)) },
      { label: 'API answer (201), for reference', values: samples.map((s) => s.apiMs) },
    ].map((row) => ({ ...row, stats: summary(row.values) }));
    const both = rows[DATA_PLANES]?.stats;
    const extraRows = [
      { label: 'both, PATCH moving a route to a new path (extra, not in the goal)', values: updates.map((s) => Math.max(...s.dataPlaneMs)) },
      { label: 'API answer (200) of those PATCHes, for reference', values: updates.map((s) => s.apiMs) },
    ].map((row) => ({ ...row, stats: summary(row.values) }));
    const goal: GoalCheck = {
      description: `propagation p99 in ms, POST /api/routes to the first 200 through both data planes (${CHANGES} creates)`,
      value: both?.p99,
      below: GOAL_P99_BELOW_MS,
      met: both?.p99 === undefined ? undefined : both.p99 < GOAL_P99_BELOW_MS,
    };
    const percent = (seconds: number): string => `${Math.round((seconds / wallSeconds) * 100)} %`;
    const markdown = [
      markdownTable(['from sending the API request to', 'changes', 'p50 ms', 'p99 ms', 'max ms'],
        [...rows, ...extraRows].map((r) => [r.label, String(r.values.length), formatNumber(r.stats.p50, 1), formatNumber(r.stats.p99, 1), formatNumber(r.stats.max, 1)])),
      '',
      `${CHANGES} creates (POST /api/routes of a new route) in ${wallSeconds.toFixed(1)} s, one after the other; then ${EXTRA_UPDATES} PATCHes, reported apart. ` +
        `CPU use over the creates (share of one core): control plane ${percent(clusterSeconds[0] as number)}, ` +
        `${dataPlanes.map((_, i) => `data plane ${i + 1} ${percent(clusterSeconds[i + 1] as number)}`).join(', ')}, bench (pollers and API client) ${percent(ownSeconds)}, ` +
        `other processes (Redis included) ${percent(otherSeconds)}. Resolution: one poll interval (${POLL_INTERVAL_MS} ms) plus one round trip.`,
      '',
      formatGoal(goal),
      '',
    ].join('\n');
    const data: JsonValue = {
      changes: CHANGES,
      warmupChanges: WARMUP_CHANGES,
      extraUpdates: EXTRA_UPDATES,
      pollIntervalMs: POLL_INTERVAL_MS,
      redisUrl: BENCH_REDIS_URL,
      wallSeconds,
      cpuSeconds: { controlPlane: clusterSeconds[0] ?? null, dataPlanes: clusterSeconds.slice(1), bench: ownSeconds, other: otherSeconds },
      summary: Object.fromEntries([...rows, ...extraRows].map((r) => [r.label, { p50Ms: r.stats.p50 ?? null, p99Ms: r.stats.p99 ?? null, maxMs: r.stats.max ?? null }])),
      samples: [...samples, ...updates].map((s) => ({ change: s.change, kind: s.kind, apiMs: s.apiMs, dataPlaneMs: [...s.dataPlaneMs] })),
    };
    return { name: 'propagation', title: propagationScenario.title, markdown, goals: [goal], data };
  },
};
