import { existsSync, readFileSync } from 'node:fs';
import { GATEWAY_NODE_FLAGS, shebangNodeFlags } from '@gateway/testing';
import { startGateway } from '../harness/gateway';
import { defineInstructionComparison, type InstructionLaunch } from '../harness/instruction-comparison';
import { startBenchServer, type ServerProcess } from '../harness/processes';
import type { HarnessContext } from '../harness/types';
import { POLICY_SET_ROUTE } from './proxy-policies';
import { PREFIX, prepareLoopbackUpstream } from './upstream-client';

/** The route's upstream deadlines, raised: under valgrind on a busy machine a request can outlast the defaults (504). */
const SLOW_PROCESS_ROUTE = { timeout: { connect: 60_000, request: 60_000 } };

/**
 * The variant's proxy.yml (the harness's, JSON) with the bench upstream and one `/api/*` route:
 * open, or with `proxy-policies`' policy set (rate limit, breaker, header variables).
 */
function benchProxyYaml(proxyYaml: string, upstreamOrigin: string, policies: boolean): string {
  const config = JSON.parse(proxyYaml) as Record<string, unknown>;
  const route = { path: `${PREFIX}/*`, upstream: 'bench', ...SLOW_PROCESS_ROUTE, ...(policies ? POLICY_SET_ROUTE : {}) };
  return `${JSON.stringify({ ...config, upstreams: [{ name: 'bench', url: upstreamOrigin }], routes: [route] }, null, 2)}\n`;
}

/**
 * `apps/cli/bin/gateway.js` of another build (a checkout before a change): adds its data plane with
 * the policy set as the variant `policies-before`, counted in the same run.
 */
const BASELINE_BIN = process.env['BENCH_PROXY_BASELINE_BIN'];

/** The body size of the GET, 100 B unless BENCH_PROXY_BODY_BYTES says (16384: issue 19's larger body and its write path). */
function bodyBytes(): number {
  const value = process.env['BENCH_PROXY_BODY_BYTES'];
  if (value === undefined || value === '') return 100;
  const bytes = Number(value);
  if (!Number.isSafeInteger(bytes) || bytes < 0 || bytes > 1024 * 1024) throw new Error(`BENCH_PROXY_BODY_BYTES must be a byte count up to 1 MiB (got ${value})`);
  return bytes;
}

function baselineCommand(): string[] {
  if (BASELINE_BIN === undefined || !existsSync(BASELINE_BIN)) throw new Error(`BENCH_PROXY_BASELINE_BIN must name apps/cli/bin/gateway.js of a build (got ${BASELINE_BIN ?? 'nothing'})`);
  return [...shebangNodeFlags(readFileSync(BASELINE_BIN, 'utf8')), BASELINE_BIN];
}

async function startVariant(upstream: ServerProcess, ctx: HarnessContext, { name, variant, proxyYaml, launch }: InstructionLaunch): Promise<ServerProcess> {
  // The minimal forwarder, under the same wrapper and node flags (the gateway's shebang flags too); it has no proxy.yml.
  if (variant.name === 'forwarder') return startBenchServer(ctx.processes, name, 'forwarder', [upstream.origin, PREFIX], undefined, { ...launch, nodeFlags: [...(launch.nodeFlags ?? []), ...GATEWAY_NODE_FLAGS] });
  const before = variant.name === 'policies-before';
  const yaml = benchProxyYaml(proxyYaml, upstream.origin, variant.name === 'policies' || before);
  return startGateway(ctx, name, 'data-plane', yaml, {}, before ? { ...launch, command: baselineCommand() } : launch);
}

/**
 * Issue 19's `proxy-policies` comparison counted in instructions, where the VM has no hardware
 * counters and the machine is too loaded for CPU-time ratios: the minimal http.request forwarder
 * (baseline), the data plane with one open route and with the policy set, GET of 100 B. User-space
 * instructions only: the system calls' kernel time (about a third of a request's CPU at full
 * speed) is not in the count, so the ratio is not the issue's requests per CPU-second; it says
 * what a change to the request path is worth.
 */
export const proxyPoliciesInstructionsScenario = defineInstructionComparison<ServerProcess>({
  name: 'proxy-policies-instructions',
  title: 'Issue 19 under callgrind: instructions per request of the http.request forwarder vs the data plane, open and with the policy set',
  description:
    'GET /api/bytes/100 (BENCH_PROXY_BODY_BYTES for another size) through the minimal node:http forwarder (baseline), the data plane with one open /api/* route and the data ' +
    'plane with rate limit, circuit breaker and request/response header variables on it (the route of proxy-policies); with ' +
    'BENCH_PROXY_BASELINE_BIN, the same policy set on that build (policies-before).',
  variants: [
    { name: 'forwarder', label: 'forwarder, http.request', env: {} },
    { name: 'open', label: 'data plane, open route', env: {} },
    { name: 'policies', label: 'data plane, policy set', env: {} },
    ...(BASELINE_BIN === undefined ? [] : [{ name: 'policies-before', label: 'data plane, policy set, BENCH_PROXY_BASELINE_BIN', env: {} }]),
  ],
  baseline: 'forwarder',
  goal: { variant: 'policies', atLeast: 1.5, description: 'forwarder/policy-set instructions per request (user space only)' },
  path: `${PREFIX}/bytes/${bodyBytes()}`,
  prepare: async (ctx) => (await prepareLoopbackUpstream(ctx)).env.upstream,
  start: startVariant,
});
