import { defineLoadComparison, type LoadCase } from '../harness/comparison';
import { startDataPlane } from '../harness/gateway';
import { startBenchServer, type ServerProcess } from '../harness/processes';

const CASES: readonly LoadCase[] = [{ name: 'body-100b', label: '100 B body', expectedBodyBytes: 100 }];
const PREFIX = '/api';
const REDIS_URL = process.env['BENCH_REDIS_URL'] ?? 'redis://127.0.0.1:6379';

/** A rate limit far above what the load reaches and a circuit breaker, as route fields. */
export const RATE_LIMIT_AND_BREAKER_FIELDS = {
  rateLimit: { enabled: true, max: 1_000_000_000, windowMs: 60_000, strategy: 'token-bucket', scope: 'ip' },
  circuitBreaker: { enabled: true, threshold: 50, volumeThreshold: 20, timeout: 30_000 },
} as const;

/** The same as route lines of proxy.yml (JSON flow mappings are YAML). */
export const RATE_LIMIT_AND_BREAKER: readonly string[] = Object.entries(RATE_LIMIT_AND_BREAKER_FIELDS).map(([name, value]) => `    ${name}: ${JSON.stringify(value)}`);

/**
 * One `/api/*` route, with or without the resilience policy set. The limit is far above what the
 * load reaches (a 429 would be cheaper than a proxied request and flatter the numbers); the health
 * check hits a real upstream path so it stays Healthy.
 */
function config(upstreamOrigin: string, policies: boolean): string {
  const route = policies
    ? [
        `  - path: ${PREFIX}/*`,
        '    upstream: bench',
        ...RATE_LIMIT_AND_BREAKER,
        `    healthCheck: { enabled: true, url: "${upstreamOrigin}/bytes/2", interval: 1000, timeout: 1000, unhealthyThreshold: 3, healthyThreshold: 1 }`,
        '    retry: { enabled: true, attempts: 3, backoff: exponential }',
      ]
    : [`  - path: ${PREFIX}/*`, '    upstream: bench', '    retry: { enabled: false, attempts: 0, backoff: exponential }'];
  return ['version: "1.0.0"', 'upstreams:', '  - name: bench', `    url: ${upstreamOrigin}`, 'routes:', ...route, ''].join('\n');
}

/**
 * What the resilience policies cost per request: the data plane with rate limit (memory store),
 * circuit breaker, health check and retries on the route, against the same data plane with no
 * route policy at all (retries off). The Redis variant adds one Redis round trip per request
 * (no goal: Redis's own CPU is not the proxy's).
 */
export const policiesScenario = defineLoadComparison<{ upstream: ServerProcess }>({
  name: 'policies',
  title: 'Resilience policy set: rate limit + breaker + health check + retry vs no policies',
  description:
    'GET 100 B through the data plane with one /api/* route: without route policies, with rate limit (memory store), ' +
    'circuit breaker, health check and retry, and the same with the Redis store. Goal: the memory policy set at >= 0.85x ' +
    'the requests per CPU-second of the plain route.',
  cases: CASES,
  baseline: 'plain',
  goals: [{ variant: 'policies', metric: 'requestsPerCpuSecond', atLeast: 0.85 }],
  prepare: async (ctx) => {
    const upstream = await startBenchServer(ctx.processes, 'upstream', 'upstream', [], ctx.options.profileDir);
    return { env: { upstream }, observe: { upstream: upstream.pid } };
  },
  variants: [
    {
      name: 'plain',
      label: 'no route policies',
      start: async ({ upstream }, ctx) => {
        const gateway = await startDataPlane(ctx, 'plain', config(upstream.origin, false));
        return { origin: gateway.origin, proxyPid: gateway.pid, request: () => ({ path: `${PREFIX}/bytes/100` }) };
      },
    },
    {
      name: 'policies',
      label: 'policy set, memory store',
      start: async ({ upstream }, ctx) => {
        const gateway = await startDataPlane(ctx, 'policies', config(upstream.origin, true));
        return { origin: gateway.origin, proxyPid: gateway.pid, request: () => ({ path: `${PREFIX}/bytes/100` }) };
      },
    },
    {
      name: 'policies-redis',
      label: 'policy set, Redis store',
      start: async ({ upstream }, ctx) => {
        const gateway = await startDataPlane(ctx, 'policies-redis', config(upstream.origin, true), { REDIS_URL });
        return { origin: gateway.origin, proxyPid: gateway.pid, request: () => ({ path: `${PREFIX}/bytes/100` }) };
      },
    },
  ],
});
