import { randomBytes, scryptSync } from 'node:crypto';
import { defineLoadComparison, type LoadCase } from '../harness/comparison';
import { startDataPlane } from '../harness/gateway';
import type { LoadRequest } from '../harness/load';
import { startBenchServer, type ServerProcess } from '../harness/processes';

const CASES: readonly LoadCase[] = [{ name: 'flood', label: 'refusal flood' }];

/** Client addresses of the many-address variants, written by the (trusted) proxy in front. */
const ADDRESSES = Array.from({ length: 1000 }, (_, i) => `10.${Math.floor(i / 250)}.${i % 250}.1`);

/** The route's one user, hashed as `hashBasicPassword` does by default (scrypt N=16384, r=8, p=1). */
function basicHash(password: string): string {
  const salt = randomBytes(16);
  const key = scryptSync(password, salt, 32, { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
  return `scrypt$16384$8$1$${salt.toString('base64')}$${key.toString('base64')}`;
}

/** One data plane behind a trusted proxy at 127.0.0.1 (X-Forwarded-For names the client), one basic route. */
function config(upstreamOrigin: string): string {
  return [
    'version: "1.0.0"',
    'proxy: { host: 127.0.0.1, port: 8080, trustedProxies: ["127.0.0.1"] }',
    'upstreams:',
    `  - { name: bench, url: "${upstreamOrigin}" }`,
    'routes:',
    `  - { id: basic, path: /basic/*, upstream: bench, auth: { enabled: true, type: basic, basic: { users: { alice: "${basicHash('the right password')}" } } } }`,
    '',
  ].join('\n');
}

const basic = (password: string): string => `Basic ${Buffer.from(`alice:${password}`).toString('base64')}`;

/**
 * A different wrong password on every request, from one client address or from 1,000 in turn.
 * The 404 baseline sends the same headers, so the ratio is what the refusal costs, not the bytes.
 */
function flood(path: string, addresses: number, expectStatuses: readonly number[]): LoadRequest {
  const headersOf = (n: number): Record<string, string> => ({ authorization: basic(`wrong ${n}`), 'x-forwarded-for': ADDRESSES[n % addresses] as string });
  return { path, headers: headersOf(0), vary: (n) => ({ headers: headersOf(n + 1) }), expectStatuses };
}

/** 401 (checked and refused), 429 (over the failed-credential limit), 503 (scrypt queue full). */
const REFUSED = [401, 429, 503] as const;

/**
 * Issue 11, "Refusals must cost little": a flood of bad basic-auth requests against a flood of
 * 404s on the same data plane. Goal: at most 2x the CPU per request (>= 0.5x requests per CPU-second).
 */
export const refusalsScenario = defineLoadComparison<{ gateway: ServerProcess }>({
  name: 'refusals',
  title: 'Refusals: bad basic-auth floods vs a 404 flood',
  description:
    'GET through one data plane (trusted proxy 127.0.0.1, one basic-auth route, scrypt N=16384): a path no route serves (404, ' +
    'the baseline), and the basic route with a different wrong password on every request from one client address, and from ' +
    '1,000 addresses in turn (X-Forwarded-For). Every variant sends the same headers. Answers: 401, 429 (failed-credential ' +
    'limit) or 503 (scrypt queue full). Goal: a refusal costs at most 2x a 404 (>= 0.5x its requests per CPU-second).',
  cases: CASES,
  baseline: 'not-found',
  goals: [
    { variant: 'bad-basic-one-address', metric: 'requestsPerCpuSecond', atLeast: 0.5 },
    { variant: 'bad-basic-1000-addresses', metric: 'requestsPerCpuSecond', atLeast: 0.5 },
  ],
  prepare: async (ctx) => {
    const upstream = await startBenchServer(ctx.processes, 'upstream', 'upstream', [], ctx.options.profileDir);
    const gateway = await startDataPlane(ctx, 'data-plane', config(upstream.origin));
    ctx.log(`data plane ${gateway.origin} (pid ${gateway.pid})`);
    return { env: { gateway }, observe: {} };
  },
  variants: [
    {
      name: 'not-found',
      label: '404 flood',
      start: async ({ gateway }) => ({ origin: gateway.origin, proxyPid: gateway.pid, request: () => flood('/nowhere', ADDRESSES.length, [404]) }),
    },
    {
      name: 'bad-basic-one-address',
      label: 'bad basic auth, one address',
      start: async ({ gateway }) => ({ origin: gateway.origin, proxyPid: gateway.pid, request: () => flood('/basic/a', 1, REFUSED) }),
    },
    {
      name: 'bad-basic-1000-addresses',
      label: 'bad basic auth, 1,000 addresses',
      start: async ({ gateway }) => ({ origin: gateway.origin, proxyPid: gateway.pid, request: () => flood('/basic/a', ADDRESSES.length, REFUSED) }),
    },
  ],
});
