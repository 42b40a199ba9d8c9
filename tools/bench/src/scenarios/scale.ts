import http from 'node:http';
import { EMPTY_PROXY_CONFIG, manyRoutesConfig, type ManyRoutesRoute } from '@gateway/testing';
import { startDataPlane } from '../harness/gateway';
import { formatGoal, formatNumber, markdownTable } from '../harness/report';
import { rssMb } from '../harness/rss';
import { pause, startTwoByteUpstream } from '../harness/two-byte-upstream';
import { median } from '../harness/stats';
import type { GoalCheck, HarnessContext, JsonValue, Scenario, ScenarioResult } from '../harness/types';

/** The table (tools/bench/dist/fixtures/many-routes.js writes the same file). */
const ROUTES = 10_000;
/** Quiet time before an RSS reading (timers and the first snapshot write settle). */
const SETTLE_MS = 3000;
/**
 * Quiet time of the second, settled reading: past the gateway's idle trim of its young generation
 * (6 s without work, a second try 6 s later; apps/cli/src/young-generation-trim.ts) and the unmapping.
 */
const SETTLED_MS = 15_000;
/** Requests in flight while every route gets its one request. */
const CONCURRENCY = 16;
const SCRAPES = 5;
const REQUEST_TIMEOUT_MS = 30_000;
const GOALS = { idleMb: 120, afterTrafficMb: 160, startMs: 1000, scrapeMs: 100 };

interface ScaleFigures {
  readonly routes: number;
  readonly startMs: number;
  readonly idleMb: number;
  /** RSS after SETTLED_MS of quiet: what the goals are read on. */
  readonly idleSettledMb: number;
  readonly afterTrafficMb: number;
  readonly afterTrafficSettledMb: number;
  readonly requestsNot200: number;
  readonly scrapeMs: number;
  readonly scrapeBytes: number;
}

/** GET on a keep-alive agent: status, body size and ms until the body ended. */
function get(origin: string, path: string, agent: http.Agent): Promise<{ status: number; bytes: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.get(origin + path, { agent, timeout: REQUEST_TIMEOUT_MS }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, ms: performance.now() - started }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${path} took longer than ${REQUEST_TIMEOUT_MS} ms`)));
    req.on('error', reject);
  });
}

/** One data plane on a proxy.yml with `routes` generated routes (0: the floor): start, RSS, one request a route, scrapes. */
async function measure(ctx: HarnessContext, upstreamOrigin: string, routes: number): Promise<ScaleFigures> {
  const generated = routes === 0 ? undefined : manyRoutesConfig({ count: routes, upstreamOrigin });
  const table: readonly ManyRoutesRoute[] = generated?.routes ?? [];
  const yaml = generated?.yaml ?? EMPTY_PROXY_CONFIG;
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const started = performance.now();
  // Listening means the routes are compiled: a proxy.yml data plane applies its file before it listens.
  const plane = await startDataPlane(ctx, `data-plane-${routes}-routes`, yaml);
  try {
    const startMs = performance.now() - started;
    await pause(SETTLE_MS);
    const idleMb = rssMb(plane.pid);
    await pause(SETTLED_MS - SETTLE_MS);
    const idleSettledMb = rssMb(plane.pid);
    let requestsNot200 = 0;
    for (let i = 0; i < table.length; i += CONCURRENCY) {
      const answers = await Promise.all(table.slice(i, i + CONCURRENCY).map((route) => get(plane.origin, route.requestPath, agent)));
      requestsNot200 += answers.filter((a) => a.status !== 200).length;
    }
    await pause(SETTLE_MS);
    const afterTrafficMb = rssMb(plane.pid);
    await pause(SETTLED_MS - SETTLE_MS);
    const afterTrafficSettledMb = rssMb(plane.pid);
    const scrapes: Array<{ ms: number; bytes: number }> = [];
    for (let i = 0; i < SCRAPES; i += 1) scrapes.push(await get(plane.origin, '/metrics', agent));
    return { routes, startMs, idleMb, idleSettledMb, afterTrafficMb, afterTrafficSettledMb, requestsNot200, scrapeMs: median(scrapes.map((s) => s.ms)) ?? Number.NaN, scrapeBytes: median(scrapes.map((s) => s.bytes)) ?? 0 };
  } finally {
    agent.destroy();
    await plane.process.stop();
  }
}

function goal(description: string, value: number, below: number): GoalCheck {
  return { description, value, below, met: value < below };
}

/**
 * 10,000 routes in little memory (issue 19): `gateway start --role data-plane` on a proxy.yml of
 * 10,000 generated routes (prefix, exact and wildcard, a third with policies; telemetry and
 * tracing at their defaults) beside the same data plane with no routes (the floor of node, V8 and
 * the gateway's modules) in the same run.
 */
export const scaleScenario: Scenario = {
  name: 'scale',
  title: `Data plane with ${formatNumber(ROUTES)} routes: memory, start and /metrics (beside an empty data plane)`,
  description:
    `A proxy.yml data plane with ${formatNumber(ROUTES)} generated routes and one with none: start time (spawn to listening), RSS idle, RSS after one ` +
    `request on every route (each read ${SETTLE_MS / 1000} s and ${SETTLED_MS / 1000} s after the process went quiet), /metrics scrape time and size. Goals (on the ${SETTLED_MS / 1000} s readings): RSS < ${GOALS.idleMb} MB idle and < ${GOALS.afterTrafficMb} MB after traffic, ` +
    `start < ${GOALS.startMs} ms, scrape < ${GOALS.scrapeMs} ms.`,
  variantNames: ['floor', 'routes'],
  async run(ctx: HarnessContext): Promise<ScenarioResult> {
    const upstream = await startTwoByteUpstream();
    try {
      const figures: ScaleFigures[] = [];
      for (const [variant, routes] of [['floor', 0], ['routes', ROUTES]] as const) {
        if (!ctx.variantSelected('scale', variant)) continue;
        ctx.log(`scale: data plane with ${routes} routes`);
        figures.push(await measure(ctx, upstream.origin, routes));
      }
      const large = figures.find((f) => f.routes === ROUTES);
      const floor = figures.find((f) => f.routes === 0);
      const goals: GoalCheck[] = large === undefined ? [] : [
        goal(`RSS idle (${SETTLED_MS / 1000} s quiet), ${formatNumber(ROUTES)} routes (MB)`, large.idleSettledMb, GOALS.idleMb),
        goal(`RSS after one request on every route (${SETTLED_MS / 1000} s quiet) (MB)`, large.afterTrafficSettledMb, GOALS.afterTrafficMb),
        goal('start, spawn to listening (ms)', large.startMs, GOALS.startMs),
        goal('/metrics scrape after traffic on every route (ms)', large.scrapeMs, GOALS.scrapeMs),
      ];
      const row = (f: ScaleFigures): string[] => [
        formatNumber(f.routes),
        formatNumber(f.startMs),
        formatNumber(f.idleMb, 1),
        formatNumber(f.idleSettledMb, 1),
        formatNumber(f.afterTrafficMb, 1),
        formatNumber(f.afterTrafficSettledMb, 1),
        formatNumber(f.requestsNot200),
        formatNumber(f.scrapeMs),
        formatNumber(f.scrapeBytes / 1024, 0),
      ];
      const perRoute = large !== undefined && floor !== undefined
        ? `\n\nPer route above the floor: ${formatNumber(((large.idleSettledMb - floor.idleSettledMb) * 1024) / ROUTES, 1)} KiB idle, ` +
          `${formatNumber(((large.afterTrafficSettledMb - floor.afterTrafficSettledMb) * 1024) / ROUTES, 1)} KiB after traffic; start ${formatNumber(large.startMs / floor.startMs, 1)}x the floor's.`
        : '';
      const markdown = [
        markdownTable(['routes', 'start ms', `RSS idle MB (${SETTLE_MS / 1000} s)`, `RSS idle MB (${SETTLED_MS / 1000} s)`, `RSS after traffic MB (${SETTLE_MS / 1000} s)`, `RSS after traffic MB (${SETTLED_MS / 1000} s)`, 'requests not 200', '/metrics ms (median)', '/metrics KiB'], figures.map(row)) + perRoute,
        ...goals.map((g) => `- ${formatGoal(g)}`),
      ].join('\n\n');
      const data: JsonValue = { figures: figures.map((f) => ({ ...f })) };
      return { name: 'scale', title: scaleScenario.title, markdown, goals, data };
    } finally {
      upstream.close();
    }
  },
};
