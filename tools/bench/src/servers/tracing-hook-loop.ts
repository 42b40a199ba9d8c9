// Runs the data plane's tracing hooks `count` times, as a proxied request would, so that valgrind
// can count what tracing adds to a request: node dist/servers/tracing-hook-loop.js <count> <mode>.
//   propagate  the `tracing` policy's onRequest (W3C trace context in, traceparent upstream), 10 % sampled, no export
//   continue   the same with a caller's (unsampled) traceparent on every request: its parse instead of a new trace id
//   loop       the loop alone, with a hook that does nothing: what the other modes' counts hold besides tracing
//   export-10  the same plus onComplete, the sampled 10 % queued by the OTLP adapter, built as
//              ReadableSpans when their batch leaves and exported by the OpenTelemetry OTLP/HTTP
//              protobuf exporter to a collector in a child process (not counted by valgrind)
// BENCH_TRACING_BATCH sets the adapter's maxExportBatchSize (default 512, the gateway's
// default), to weigh the HTTP cost of more exports against the GC of spans that wait less.
// The compiled data plane is loaded by path (the bench does not depend on the data plane's package).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from '@gateway/testing';

type Hooks = { onRequest(exchange: unknown): unknown; onComplete?(exchange: unknown): void };
const dist = path.join(REPO_ROOT, 'apps', 'data-plane', 'dist');
const load = <T>(file: string): T => require(path.join(dist, file)) as T; // eslint-disable-line @typescript-eslint/no-require-imports
const { tracingPolicy } = load<{ tracingPolicy: { create(route: unknown, env: unknown): Hooks } }>('policies/tracing/tracing.policy.js');
const { SPAN_EXPORT } = load<{ SPAN_EXPORT: unknown }>('policies/tracing/span-export.js');
const { ServiceRegistry } = load<{ ServiceRegistry: new () => { provide(key: unknown, value: unknown): unknown } }>('engine/service-registry.js');
const { OtlpSpanExport } = load<{ OtlpSpanExport: new (options: unknown) => { close(): Promise<void>; readonly queued: number } }>('adapters/otlp-span-export.adapter.js');

const SINK = `const s=require('node:http').createServer((q,r)=>{q.resume();q.on('end',()=>{r.setHeader('content-type','application/x-protobuf');r.end()})});s.listen(0,'127.0.0.1',()=>console.log(s.address().port));process.stdin.on('end',()=>process.exit(0));process.stdin.resume();`;

async function startSink(): Promise<{ endpoint: string; stop(): void }> {
  const child = spawn(process.execPath, ['-e', SINK], { stdio: ['pipe', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve) => child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim())));
  return { endpoint: `http://127.0.0.1:${port}/v1/traces`, stop: () => child.stdin.end() };
}

async function main(): Promise<void> {
  const count = Number(process.argv[2]);
  const batch = Number(process.env['BENCH_TRACING_BATCH'] ?? 512);
  if (!Number.isSafeInteger(batch) || batch < 1) throw new Error('BENCH_TRACING_BATCH must be a positive integer');
  const mode = process.argv[3];
  if (!Number.isSafeInteger(count) || count < 0 || !['propagate', 'continue', 'export-10', 'loop'].includes(mode ?? '')) throw new Error('usage: tracing-hook-loop.js <count> propagate|continue|export-10|loop');
  const provided = new ServiceRegistry();
  const sink = mode === 'export-10' ? await startSink() : undefined;
  const dropped = { inc: (): void => undefined };
  const spans =
    sink === undefined
      ? undefined
      : new OtlpSpanExport({
          settings: { enabled: true, endpoint: sink.endpoint, serviceName: 'bench', timeout: 10_000, maxQueueSize: 1_000_000, maxExportBatchSize: batch, scheduledDelay: 5000 },
          headers: {},
          serviceVersion: '0.0.0',
          logger: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
          dropped: { queueFull: dropped, exportFailed: dropped },
        });
  if (spans !== undefined) provided.provide(SPAN_EXPORT, spans);
  const settings = { tracing: { enabled: true, samplingRatio: 0.1, otlp: {} } };
  const hooks: Hooks = mode === 'loop' ? { onRequest: () => undefined } : tracingPolicy.create({ id: 'api', path: '/api/*', upstream: 'http://127.0.0.1:9' }, { settings, services: { provided } });
  const socket = {};
  const caller = mode === 'continue' ? { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00' } : {};
  const req = { headers: { host: 'gateway', 'user-agent': 'bench', ...caller }, socket, httpVersion: '1.1' };
  // One exchange for every call: the dispatcher makes a request's exchange whether tracing is on or not.
  const exchange = { req, method: 'GET', path: '/api/bytes/100', clientIp: '127.0.0.1', correlationId: 'req-1-abc', status: 200, attempts: 1, errorCode: undefined, startedAt: performance.now(), trace: undefined, upstreamHeaders: { host: 'upstream' } };
  for (let i = 0; i < count; i += 1) {
    hooks.onRequest(exchange);
    hooks.onComplete?.(exchange);
    // Let the batch processor's exports run between requests, as they would on a serving event loop.
    if (spans !== undefined && i % 512 === 511) await new Promise((resolve) => setImmediate(resolve));
  }
  await spans?.close();
  sink?.stop();
  if (spans !== undefined && spans.queued !== 0) throw new Error(`${spans.queued} spans left unexported`);
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
