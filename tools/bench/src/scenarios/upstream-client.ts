import { defineLoadComparison, type LoadCase, type VariantDefinition } from '../harness/comparison';
import { startBenchServer, type ServerProcess } from '../harness/processes';
import type { HarnessContext } from '../harness/types';
import { GATEWAY_NODE_FLAGS } from '@gateway/testing';

/** The bodies of the proxy scenario (tools/bench/src/scenarios/proxy.ts). */
export const PROXY_BODY_CASES: readonly LoadCase[] = [
  { name: 'body-100b', label: '100 B body', expectedBodyBytes: 100 },
  { name: 'body-16kib', label: '16 KiB body', expectedBodyBytes: 16 * 1024 },
];
export const PREFIX = '/api';
export const bodyPath = (loadCase: LoadCase): string => `${PREFIX}/bytes/${loadCase.expectedBodyBytes ?? 0}`;

/** The loopback upstream of the proxy scenarios, its CPU observed beside the proxy's. */
export async function prepareLoopbackUpstream(ctx: HarnessContext): Promise<{ env: { upstream: ServerProcess }; observe: Record<string, number> }> {
  const upstream = await startBenchServer(ctx.processes, 'upstream', 'upstream', [], ctx.options.profileDir);
  ctx.log(`upstream listening on ${upstream.origin} (pid ${upstream.pid})`);
  return { env: { upstream }, observe: { upstream: upstream.pid } };
}

/**
 * One minimal forwarder per upstream client: the same server half, the client half swapped. It runs
 * with the gateway's own node flags (its bin's shebang, `GATEWAY_NODE_FLAGS`): issue 19 compares
 * the two "with the same node flags", so neither gets a young generation the other lacks.
 */
export const forwarderVariant = (name: string, label: string, script: string): VariantDefinition<{ upstream: ServerProcess }> => ({
  name,
  label,
  start: async ({ upstream }, ctx) => {
    const forwarder = await startBenchServer(ctx.processes, name, script, [upstream.origin, PREFIX], ctx.options.profileDir, { nodeFlags: GATEWAY_NODE_FLAGS });
    return { origin: forwarder.origin, proxyPid: forwarder.pid, request: (c) => ({ path: bodyPath(c) }) };
  },
});

/**
 * Issue 19's decision "our upstream client or undici's": the minimal forwarder on http.request
 * (the baseline of every proxy goal), on undici 7's Pool, and on the data plane's lean client
 * (engine/upstream-client), in one run. Goal: the lean client at least as cheap as undici, i.e.
 * its requests per CPU-second >= undici's; the ratio line below is the lean client against
 * undici's own ratio to the baseline in the same run.
 */
export const upstreamClientScenario = defineLoadComparison<{ upstream: ServerProcess }>({
  name: 'upstream-client',
  title: 'Upstream client: the minimal forwarder on http.request vs undici Pool vs our lean client',
  description:
    'GET 100 B and 16 KiB bodies from the loopback upstream through three copies of the minimal forwarder that differ only ' +
    'in their upstream client: http.request with a keep-alive Agent (baseline), undici 7 Pool.stream, and the data plane\'s ' +
    'lean HTTP/1.1 client. No goal line of its own: compare the lean and undici rows (issue 19 wants the lean one ahead).',
  cases: PROXY_BODY_CASES,
  baseline: 'forwarder',
  goals: [],
  prepare: prepareLoopbackUpstream,
  variants: [
    forwarderVariant('forwarder', 'forwarder, http.request', 'forwarder'),
    forwarderVariant('undici', 'forwarder, undici Pool', 'undici-forwarder'),
    forwarderVariant('lean', 'forwarder, lean client', 'lean-forwarder'),
  ],
});
