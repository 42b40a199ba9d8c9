/**
 * What V8 still (re)compiles after a warm-up, without valgrind: the telemetry-instructions set-up
 * (an upstream, a control plane over Redis, data planes following it with GATEWAY_TELEMETRY off
 * and on) with node `--trace-opt --trace-deopt`, `--total` sequential GETs on one keep-alive
 * connection, and the TurboFan compilations and deoptimizations printed after the first `--mark`.
 * `--pace-ms` waits that long before each request after the mark, as a process under callgrind
 * does (there a request takes 30-300 ms, so timers fire between requests).
 *
 *   node tools/bench/dist/tier-up/main.js [--node-flags "--single-threaded"] [--total 30000] [--mark 20000] [--pace-ms 0]
 *
 * Redis is BENCH_REDIS_URL (default redis://127.0.0.1:6379). See tools/bench/README.md,
 * "Instructions under callgrind".
 */
import http from 'node:http';
import { parseArgs } from 'node:util';
import { overlayProxyYaml } from '../harness/instruction-comparison';
import { ProcessRegistry } from '../harness/processes';
import type { HarnessContext } from '../harness/types';
import { prepareTelemetryBench, TELEMETRY_BENCH_PATH, telemetryFollower } from '../scenarios/telemetry';
import { countCompilations, summarizeTierUp } from './trace-summary';

const REQUEST_TIMEOUT_MS = 60_000;
/** Trace lines of the last requests may still be on their way through the pipe. */
const DRAIN_MS = 500;
/** Compilations are also counted per block of this many requests after the mark (does it settle?). */
const BLOCK = 1000;

function get(origin: string, agent: http.Agent): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.get(origin + TELEMETRY_BENCH_PATH, { agent, timeout: REQUEST_TIMEOUT_MS }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`GET ${TELEMETRY_BENCH_PATH} answered ${res.statusCode}`))));
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${TELEMETRY_BENCH_PATH} timed out`)));
    req.on('error', reject);
  });
}

async function send(origin: string, agent: http.Agent, count: number, paceMs: number): Promise<void> {
  for (let i = 0; i < count; i += 1) {
    if (paceMs > 0) await new Promise((resolve) => setTimeout(resolve, paceMs));
    await get(origin, agent);
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'node-flags': { type: 'string', default: '--single-threaded' },
      total: { type: 'string', default: '30000' },
      mark: { type: 'string', default: '20000' },
      'pace-ms': { type: 'string', default: '0' },
    },
  });
  const total = Number(values.total);
  const mark = Number(values.mark);
  const paceMs = Number(values['pace-ms']);
  if (!Number.isInteger(total) || !Number.isInteger(mark) || mark < 0 || mark > total) throw new Error('--mark and --total must be integers with 0 <= mark <= total');
  if (!Number.isFinite(paceMs) || paceMs < 0) throw new Error('--pace-ms must be a number >= 0');
  const nodeFlags = [...(values['node-flags'] ?? '').split(' ').filter((f) => f !== ''), '--trace-opt', '--trace-deopt'];

  const processes = new ProcessRegistry();
  const ctx: HarnessContext = {
    // Only the set-up helpers run: no load phase reads these.
    options: { durationSeconds: 0, warmupSeconds: 0, initialWarmupSeconds: 0, rounds: 1, connections: 1, rate: 0, otherCpuLimit: 1, retries: 0, only: [], resultsPath: '', pin: false, freshProcesses: false },
    processes,
    counters: { available: false, reason: 'not used: V8 traces only' },
    pinning: undefined,
    log: (message) => process.stderr.write(`${message}\n`),
    variantSelected: () => true,
  };
  try {
    const { env } = await prepareTelemetryBench(ctx, { timeout: { connect: REQUEST_TIMEOUT_MS, request: REQUEST_TIMEOUT_MS } });
    const reports = await Promise.all(
      (['off', 'on'] as const).map(async (telemetry) => {
        const dp = await telemetryFollower(env, ctx, `data-plane-${telemetry}`, { GATEWAY_TELEMETRY: telemetry }, { nodeFlags }, overlayProxyYaml());
        const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
        await send(dp.origin, agent, mark, 0);
        const before = dp.process.process.output.length;
        const blockEnds: number[] = [];
        for (let sent = mark; sent < total; sent += BLOCK) {
          await send(dp.origin, agent, Math.min(BLOCK, total - sent), paceMs);
          blockEnds.push(dp.process.process.output.length);
        }
        await new Promise((resolve) => setTimeout(resolve, DRAIN_MS));
        const output = dp.process.process.output;
        const perBlock = blockEnds.map((end, i) => countCompilations(output.slice(i === 0 ? before : blockEnds[i - 1], end)));
        agent.destroy();
        const summary = summarizeTierUp(output.slice(before));
        return (
          `telemetry ${telemetry}, node ${nodeFlags.join(' ')}, requests ${mark + 1}-${total}${paceMs > 0 ? ` (${paceMs} ms apart)` : ''}:\n` +
          `  compilations per ${BLOCK} requests: ${perBlock.join(', ')}\n${summary}`
        );
      }),
    );
    process.stdout.write(`${reports.join('\n\n')}\n`);
  } finally {
    await processes.stopAll();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
