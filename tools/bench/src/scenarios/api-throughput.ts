import { BENCH_REDIS_URL, startBenchControlPlane, type BenchControlPlane } from '../harness/cluster';
import { defineLoadComparison, type LoadCase, type RunningVariant } from '../harness/comparison';
import type { HarnessContext } from '../harness/types';

const ROUTES = 1000;
/** Routes created at once while seeding (the control plane commits them one after the other anyway). */
const SEED_CONCURRENCY = 8;

const CASES: readonly LoadCase[] = [
  { name: 'default-page', label: 'GET /api/routes (default page, 10 routes)' },
  { name: 'limit-100', label: 'GET /api/routes?limit=100' },
];
const PATHS: Record<string, string> = { 'default-page': '/api/routes', 'limit-100': '/api/routes?limit=100' };

/**
 * Seeds ROUTES routes through the API itself (POST /api/routes, as an operator's script would), so
 * the rows are exactly what the product writes; then checks the list reports them all.
 */
async function seedRoutes(ctx: HarnessContext, cp: BenchControlPlane): Promise<void> {
  const started = Date.now();
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < ROUTES; i = next++) {
      const id = `seed-${String(i).padStart(4, '0')}`;
      await cp.api.expect(201, 'POST', '/api/routes', {
        id,
        path: `/seed/${id}/*`,
        upstream: `http://10.0.${Math.floor(i / 250)}.${(i % 250) + 1}:8080/v1`,
        description: `benchmark route ${i}`,
        tags: ['bench', `group-${i % 10}`],
        methods: ['GET', 'POST'],
      });
    }
  };
  await Promise.all(Array.from({ length: SEED_CONCURRENCY }, worker));
  const total = (await cp.api.expect(200, 'GET', '/api/routes?limit=1')).json<{ pagination: { total: number } }>().pagination.total;
  if (total !== ROUTES) throw new Error(`seeded ${ROUTES} routes but the list reports ${total}`);
  ctx.log(`seeded ${ROUTES} routes through the API in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

async function startSeeded(ctx: HarnessContext, name: string, redisUrl: string | undefined): Promise<RunningVariant> {
  const cp = await startBenchControlPlane(ctx, name, redisUrl);
  await seedRoutes(ctx, cp);
  const headers = { authorization: `Bearer ${cp.api.token}` };
  return { origin: cp.process.origin, proxyPid: cp.process.pid, request: (c) => ({ path: PATHS[c.name] as string, headers }) };
}

/**
 * Management API throughput: `GET /api/routes` on a control plane holding 1,000 routes, under the
 * harness's closed-loop load, with an admin's bearer token (every request is authenticated,
 * authorised, throttled and counted like a real one). "proxy" in the tables is the control plane.
 */
export const apiThroughputScenario = defineLoadComparison<Record<string, never>>({
  name: 'api-throughput',
  title: 'Management API: GET /api/routes with 1,000 routes (control plane process)',
  description:
    `gateway start --role control-plane (SQLite) holding ${ROUTES} routes created through POST /api/routes; GET /api/routes (default page of 10, ` +
    'and limit=100) with an admin token under closed-loop load, reporting req/s, p50/p99 and requests per CPU-second of the control plane. ' +
    'Variants: API limit counters in memory (no REDIS_URL) and in Redis (REDIS_URL = BENCH_REDIS_URL). API_RATE_LIMIT_{GENERAL,ADMIN,CREDENTIALS}_MAX ' +
    'are raised to 1,000,000 (decision 21 allows 60 admin requests a minute). No goal.',
  cases: CASES,
  baseline: 'memory',
  goals: [],
  prepare: async () => ({ env: {}, observe: {} }),
  variants: [
    {
      name: 'memory',
      label: 'control plane, limit counters in memory',
      start: (_env, ctx) => startSeeded(ctx, 'control-plane', undefined),
    },
    {
      name: 'redis',
      label: 'control plane, limit counters in Redis',
      start: (_env, ctx) => startSeeded(ctx, 'control-plane-redis', BENCH_REDIS_URL),
    },
  ],
});
