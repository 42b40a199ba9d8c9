import { createHmac } from 'node:crypto';
import { defineLoadComparison, type LoadCase, type PreparedEnv } from '../harness/comparison';
import { startDataPlane } from '../harness/gateway';
import { startBenchServer, type ServerProcess } from '../harness/processes';
import type { HarnessContext } from '../harness/types';

/** Response bodies served by the upstream at /bytes/<n>. */
const CASES: readonly LoadCase[] = [
  { name: 'body-100b', label: '100 B body', expectedBodyBytes: 100 },
  { name: 'body-16kib', label: '16 KiB body', expectedBodyBytes: 16 * 1024 },
];

const upstreamPath = (loadCase: LoadCase): string => `/bytes/${loadCase.expectedBodyBytes ?? 0}`;

/** HS256 secret the JWT route reads from the environment (never in the config). */
const SECRET_ENV = 'BENCH_JWT_SECRET';
const SECRET = 'bench-secret-of-at-least-thirty-two-characters';

/**
 * A valid HS256 token for a day. `jti` makes tokens distinct at the same length: the `jwt` variant
 * sends one token throughout, `jwt-every-request` cycles through more distinct tokens than the
 * data plane remembers as verified, so each of its requests is checked by jose.
 */
function benchToken(jti = 0): string {
  const part = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  const claims = { sub: 'bench-user', jti: String(jti).padStart(8, '0'), exp: Math.floor(Date.now() / 1000) + 86_400 };
  const input = `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}`;
  return `${input}.${createHmac('sha256', SECRET).update(input).digest('base64url')}`;
}

/** More than the verifier remembers (10 000, oldest dropped first): cycling through them, every token is new to it. */
const DISTINCT_TOKENS = 12_000;

/** One data plane, three routes: open, cached (a day's ttl: every measured request is a hit), JWT. */
function edgeConfig(upstreamOrigin: string): string {
  return [
    'version: "1.0.0"',
    'proxy: { host: 127.0.0.1, port: 8080 }',
    'upstreams:',
    `  - { name: bench, url: "${upstreamOrigin}" }`,
    'routes:',
    '  - { id: open, path: /api/*, upstream: bench }',
    '  - { id: cached, path: /cached/*, upstream: bench, cache: { enabled: true, ttl: 86400000 } }',
    `  - { id: jwt, path: /jwt/*, upstream: bench, auth: { enabled: true, type: jwt, jwt: { secretEnv: ${SECRET_ENV}, algorithms: [HS256] } } }`,
    '',
  ].join('\n');
}

interface EdgeEnv {
  upstream: ServerProcess;
  gateway: ServerProcess;
}

async function prepareEdge(ctx: HarnessContext): Promise<PreparedEnv<EdgeEnv>> {
  const upstream = await startBenchServer(ctx.processes, 'upstream', 'upstream', [], ctx.options.profileDir);
  const gateway = await startDataPlane(ctx, 'data-plane', edgeConfig(upstream.origin), { [SECRET_ENV]: SECRET });
  ctx.log(`upstream ${upstream.origin} (pid ${upstream.pid}); data plane ${gateway.origin} (pid ${gateway.pid})`);
  return { env: { upstream, gateway }, observe: { upstream: upstream.pid } };
}

/**
 * Response cache: a hit served by the data plane against the minimal forwarder, against the same
 * data plane proxying the request on an open route, and against real misses on the cached route
 * (a distinct query per request: lookup, leading the miss, capturing and storing the response).
 * Goal: a hit costs less CPU than the minimal forwarder (>= 1.0x its requests per CPU-second).
 */
export const edgeCacheScenario = defineLoadComparison<EdgeEnv>({
  name: 'edge-cache',
  title: 'Response cache: hit vs miss vs proxied vs minimal forwarder',
  description:
    'GET 100 B and 16 KiB bodies: through the minimal node:http forwarder, through the data plane on an open route ' +
    '(proxied, no cache), on the cached route with a distinct query per request (every request a miss that is stored), ' +
    'and on the cached route with one URL (every measured request a hit). ' +
    'Goal: a cache hit at >= 1.0x the forwarder\'s requests per CPU-second (it must cost less CPU than forwarding).',
  cases: CASES,
  baseline: 'forwarder',
  goals: [
    { variant: 'cache-hit', metric: 'requestsPerCpuSecond', atLeast: 1.0 },
    { variant: 'cache-hit', metric: 'cyclesPerRequest', atLeast: 1.0 },
  ],
  prepare: prepareEdge,
  variants: [
    {
      name: 'forwarder',
      label: 'minimal forwarder',
      start: async ({ upstream }, ctx) => {
        const forwarder = await startBenchServer(ctx.processes, 'forwarder', 'forwarder', [upstream.origin, '/api'], ctx.options.profileDir);
        return { origin: forwarder.origin, proxyPid: forwarder.pid, request: (c) => ({ path: '/api' + upstreamPath(c) }) };
      },
    },
    {
      name: 'proxied',
      label: 'data plane, proxied',
      start: async ({ gateway }) => ({ origin: gateway.origin, proxyPid: gateway.pid, request: (c) => ({ path: '/api' + upstreamPath(c) }) }),
    },
    {
      name: 'cache-miss',
      label: 'data plane, cache miss',
      start: async ({ gateway }) => ({
        origin: gateway.origin,
        proxyPid: gateway.pid,
        request: (c) => ({ path: '/cached' + upstreamPath(c) + '?miss=0', vary: (n) => ({ path: `/cached${upstreamPath(c)}?miss=${n + 1}` }) }),
      }),
    },
    {
      name: 'cache-hit',
      label: 'data plane, cache hit',
      start: async ({ gateway }) => ({ origin: gateway.origin, proxyPid: gateway.pid, request: (c) => ({ path: '/cached' + upstreamPath(c) }) }),
    },
  ],
});

/**
 * JWT: the same data plane on an open route and on a route with HS256 bearer tokens (jose). The
 * `jwt` variant sends one token, as a client does for the token's lifetime: after its first check
 * the data plane answers from the tokens it remembers as verified (the adapter's 60 s memory).
 * `jwt-every-request` sends a token the data plane has not seen on each request: a full jose check
 * every time, the worst case. Goal: JWT costs at most 10 % of requests per CPU-second (>= 0.9x open).
 */
export const edgeJwtScenario = defineLoadComparison<EdgeEnv>({
  name: 'edge-jwt',
  title: 'JWT authentication: protected route vs open route',
  description:
    'GET 100 B and 16 KiB bodies through the data plane: an open route, and a route with auth.type jwt (HS256): ' +
    'one token throughout (verified once, then remembered as verified), and a new token on every request (a full ' +
    'jose check each time); every variant sends a bearer token of the same length, so the ratio is the cost of the ' +
    'auth policy itself. Goal: the JWT route at >= 0.9x the open route\'s requests per CPU-second.',
  cases: CASES,
  baseline: 'open',
  goals: [
    { variant: 'jwt', metric: 'requestsPerCpuSecond', atLeast: 0.9 },
    { variant: 'jwt', metric: 'cyclesPerRequest', atLeast: 0.9 },
  ],
  prepare: prepareEdge,
  variants: [
    {
      name: 'open',
      label: 'data plane, open route',
      start: async ({ gateway }) => {
        // The same bearer token as the JWT route's requests: the open route forwards it unread, so
        // the ratio isolates what the auth policy costs (verification, identity headers), not the
        // client's larger request, which both routes then parse and forward alike.
        const headers = { authorization: `Bearer ${benchToken()}` };
        return { origin: gateway.origin, proxyPid: gateway.pid, request: (c) => ({ path: '/api' + upstreamPath(c), headers }) };
      },
    },
    {
      name: 'jwt',
      label: 'data plane, JWT route',
      start: async ({ gateway }) => {
        const headers = { authorization: `Bearer ${benchToken()}` };
        return { origin: gateway.origin, proxyPid: gateway.pid, request: (c) => ({ path: '/jwt' + upstreamPath(c), headers }) };
      },
    },
    {
      name: 'jwt-every-request',
      label: 'data plane, JWT route, new token per request',
      start: async ({ gateway }) => {
        const tokens = Array.from({ length: DISTINCT_TOKENS }, (_, i) => `Bearer ${benchToken(i + 1)}`);
        return {
          origin: gateway.origin,
          proxyPid: gateway.pid,
          request: (c) => ({
            path: '/jwt' + upstreamPath(c),
            headers: { authorization: tokens[0] as string },
            vary: (n) => ({ headers: { authorization: tokens[n % DISTINCT_TOKENS] as string } }),
          }),
        };
      },
    },
  ],
});
