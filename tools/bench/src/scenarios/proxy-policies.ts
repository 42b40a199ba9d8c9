import { baselineCommand } from '../harness/baseline-build';
import { defineLoadComparison, type VariantDefinition } from '../harness/comparison';
import { startDataPlane } from '../harness/gateway';
import type { ServerProcess } from '../harness/processes';
import { RATE_LIMIT_AND_BREAKER_FIELDS } from './policies';
import { bodyPath, forwarderVariant, PREFIX, prepareLoopbackUpstream, PROXY_BODY_CASES } from './upstream-client';

/**
 * Issue 19's policy set as route fields: a rate limit far above the load (a 429 would be cheaper
 * than proxying), a circuit breaker, and header variables on the request and the response.
 */
export const POLICY_SET_ROUTE = {
  ...RATE_LIMIT_AND_BREAKER_FIELDS,
  headers: {
    request: { set: { 'X-Request-Id': '${requestId}', 'X-Client-Ip': '${clientIp}' } },
    response: { set: { 'X-Served-By': 'gateway ${route}' } },
  },
} as const;

/** One `/api/*` route as a new user writes it, open or with the policy set. Telemetry on and tracing off, at their defaults. */
function config(upstreamOrigin: string, policies: boolean): string {
  const route = { path: `${PREFIX}/*`, upstream: 'bench', ...(policies ? POLICY_SET_ROUTE : {}) };
  // JSON is YAML.
  return `${JSON.stringify({ version: '1.0.0', upstreams: [{ name: 'bench', url: upstreamOrigin }], routes: [route] }, null, 2)}\n`;
}

/** Another build's `apps/cli/bin/gateway.js` for the `policies-before` variant (a change's same-run CPU baseline). */
const BASELINE_BIN_VARIABLE = 'BENCH_PROXY_BASELINE_BIN';

const dataPlaneVariant = (name: string, label: string, policies: boolean, before = false): VariantDefinition<{ upstream: ServerProcess }> => ({
  name,
  label,
  start: async ({ upstream }, ctx) => {
    const launch = before ? { command: baselineCommand(BASELINE_BIN_VARIABLE) } : {};
    const gateway = await startDataPlane(ctx, name, config(upstream.origin, policies), {}, launch);
    return { origin: gateway.origin, proxyPid: gateway.pid, request: (c) => ({ path: bodyPath(c) }) };
  },
});

/**
 * Issue 19's goal, measured as a new user tries it (`gateway start --role data-plane`, run with
 * `--connections 64`): the data plane with the policy set against the minimal node:http
 * forwarder (baseline) and the same forwarder on undici's Pool, in one run.
 */
export const proxyPoliciesScenario = defineLoadComparison<{ upstream: ServerProcess }>({
  name: 'proxy-policies',
  title: 'Issue 19: the data plane with rate limit, breaker and header variables vs the http.request and undici forwarders',
  description:
    'GET 100 B and 16 KiB bodies from the loopback upstream through the minimal node:http forwarder (baseline), the same ' +
    'forwarder on undici 7 Pool, the data plane with one open /api/* route and the data plane with rate limit, circuit ' +
    'breaker and request/response header variables on it. Goals: the policy route at >= 1.5x the baseline\'s requests ' +
    'per CPU-second; compare its ratio with the undici row (issue 19 wants it ahead) and its p99 with the baseline\'s.',
  cases: PROXY_BODY_CASES,
  baseline: 'forwarder',
  goals: [{ variant: 'policies', metric: 'requestsPerCpuSecond', atLeast: 1.5, confidence: 0.95 }],
  prepare: prepareLoopbackUpstream,
  variants: [
    forwarderVariant('forwarder', 'forwarder, http.request', 'forwarder'),
    forwarderVariant('undici', 'forwarder, undici Pool', 'undici-forwarder'),
    dataPlaneVariant('open', 'data plane, open route', false),
    dataPlaneVariant('policies', 'data plane, policy set', true),
    // The same policy set on another build, run in the same rounds: a change's CPU ratio against its start.
    ...(process.env[BASELINE_BIN_VARIABLE] === undefined ? [] : [dataPlaneVariant('policies-before', `data plane, policy set, ${BASELINE_BIN_VARIABLE}`, true, true)]),
  ],
});
