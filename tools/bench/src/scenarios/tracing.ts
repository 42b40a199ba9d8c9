import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { defineLoadComparison, type LoadCase } from '../harness/comparison';
import { startDataPlane } from '../harness/gateway';
import { startBenchServer, type ServerProcess } from '../harness/processes';
import type { HarnessContext } from '../harness/types';

const CASES: readonly LoadCase[] = [{ name: 'body-100b', label: '100 B body', expectedBodyBytes: 100 }];
const PREFIX = '/api';
/** The request both tracing scenarios send: GET of a 100 B body through the one `/api/*` route. */
export const TRACING_BENCH_PATH = `${PREFIX}/bytes/100`;

export type TracingVariant = 'off' | 'sampled-10' | 'sampled-100' | 'access-log';

export interface TracingBenchEnv {
  readonly upstream: ServerProcess;
  /** OTLP/HTTP traces URL of a collector that reads and discards every export. */
  readonly collector: string;
}

/**
 * A collector that reads each export and answers 200 in the export's encoding (an empty OTLP
 * response: `{}` in JSON, zero bytes in protobuf), in the harness process (its work is not the
 * proxy's), so builds exporting either encoding can be compared in one run. Unreferenced: it never
 * keeps the harness alive.
 */
export async function startDiscardingCollector(): Promise<string> {
  const server = http.createServer((req, res) => {
    req.resume();
    const protobuf = req.headers['content-type'] === 'application/x-protobuf';
    req.on('end', () => res.writeHead(200, { 'content-type': protobuf ? 'application/x-protobuf' : 'application/json' }).end(protobuf ? undefined : '{}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`;
}

/** proxy.yml of one variant. */
function tracingConfig(upstreamOrigin: string, collector: string, variant: TracingVariant): string {
  const sampled = (ratio: number): string[] => [
    '  tracing:',
    '    enabled: true',
    `    samplingRatio: ${ratio}`,
    `    otlp: { enabled: true, endpoint: "${collector}" }`,
  ];
  const proxy = variant === 'sampled-10' ? sampled(0.1) : variant === 'sampled-100' ? sampled(1) : variant === 'access-log' ? ['  accessLog: { enabled: true }'] : [];
  return ['version: "1.0.0"', 'proxy:', '  host: 127.0.0.1', ...proxy, 'upstreams:', '  - name: bench', `    url: ${upstreamOrigin}`, 'routes:', `  - { path: "${PREFIX}/*", upstream: bench }`, ''].join('\n');
}

/** The upstream and the collector both tracing scenarios use. */
export async function prepareTracingBench(ctx: HarnessContext): Promise<{ env: TracingBenchEnv; observe: Record<string, number> }> {
  const upstream = await startBenchServer(ctx.processes, 'upstream', 'upstream', [], ctx.options.profileDir);
  return { env: { upstream, collector: await startDiscardingCollector() }, observe: { upstream: upstream.pid } };
}

const variant = (name: TracingVariant, label: string, env: NodeJS.ProcessEnv = {}) => ({
  name,
  label,
  start: async ({ upstream, collector }: TracingBenchEnv, ctx: HarnessContext) => {
    const gateway = await startDataPlane(ctx, `data-plane-${name}`, tracingConfig(upstream.origin, collector, name), env);
    return { origin: gateway.origin, proxyPid: gateway.pid, request: () => ({ path: TRACING_BENCH_PATH }) };
  },
});

/**
 * What tracing (issue 18, docs/tracing.md) costs per request: the data plane with tracing off (the
 * default), with W3C trace context on and 10 % (and 100 %) of the traces exported over OTLP/HTTP
 * to a loopback collector, and with the access log on (one JSON line a request to stdout). Goal:
 * 10 % sampling at most 5 % dearer (requests per CPU-second, and instructions where hardware
 * counters exist). Under callgrind: `tracing-instructions` and `tracing-off-instructions` (against a build without tracing).
 */
export const tracingScenario = defineLoadComparison<TracingBenchEnv>({
  name: 'tracing',
  title: 'Tracing off vs W3C trace context with 10 % / 100 % OTLP export vs access log',
  description:
    'GET 100 B through the data plane with one /api/* route: tracing off (default), tracing on with 10 % and 100 % of traces ' +
    'exported over OTLP/HTTP (protobuf) to a loopback collector, and the access log on (LOG_LEVEL=info, one line a request). ' +
    'Goal: 10 % sampling at >= 0.95x the requests per CPU-second (and instructions) of tracing off.',
  cases: CASES,
  baseline: 'off',
  goals: [
    { variant: 'sampled-10', metric: 'requestsPerCpuSecond', atLeast: 0.95 },
    { variant: 'sampled-10', metric: 'instructionsPerRequest', atLeast: 0.95 },
  ],
  prepare: (ctx) => prepareTracingBench(ctx),
  variants: [
    variant('off', 'tracing off'),
    variant('sampled-10', 'trace context, 10 % exported'),
    variant('sampled-100', 'trace context, 100 % exported'),
    variant('access-log', 'access log on', { LOG_LEVEL: 'info' }),
  ],
});
