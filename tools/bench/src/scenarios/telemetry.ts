import http from 'node:http';
import { dataPlaneEnv, EMPTY_PROXY_CONFIG } from '@gateway/testing';
import { BENCH_REDIS_URL, startBenchControlPlane, type BenchControlPlane } from '../harness/cluster';
import { defineLoadComparison, type LoadCase, type RunningVariant } from '../harness/comparison';
import { startGateway } from '../harness/gateway';
import { startBenchServer, type ServerProcess } from '../harness/processes';

const CASES: readonly LoadCase[] = [{ name: 'body-100b', label: '100 B body', expectedBodyBytes: 100 }];
const PREFIX = '/tel';
const READY_WITHIN_MS = 10_000;

interface Env {
  upstream: ServerProcess;
  controlPlane: BenchControlPlane;
}

function status(origin: string, path: string): Promise<number> {
  return new Promise((resolve) => {
    http
      .get(origin + path, { agent: false, timeout: 1000 }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
      .on('error', () => resolve(0));
  });
}

/** A data plane following the control plane over Redis, once it serves the route. */
async function follower(env: Env, ctx: Parameters<typeof startGateway>[0], name: string, telemetry: 'on' | 'off'): Promise<RunningVariant> {
  const gateway = await startGateway(ctx, name, 'data-plane', EMPTY_PROXY_CONFIG, {
    ...dataPlaneEnv(env.controlPlane.secrets, BENCH_REDIS_URL, env.controlPlane.process.origin),
    GATEWAY_TELEMETRY: telemetry,
  });
  const deadline = Date.now() + READY_WITHIN_MS;
  while ((await status(gateway.origin, `${PREFIX}/bytes/100`)) !== 200) {
    if (Date.now() > deadline) throw new Error(`${name} did not serve ${PREFIX}/* within ${READY_WITHIN_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { origin: gateway.origin, proxyPid: gateway.pid, request: () => ({ path: `${PREFIX}/bytes/100` }) };
}

/**
 * What cluster telemetry (issue 12) costs per request: two data planes that follow one control
 * plane over Redis, one with GATEWAY_TELEMETRY=off, one with it on (the default: per-request tallies
 * and a latency-sketch bucket, one window published a second). Goal: at most 3 % more
 * instructions per request with telemetry on (hardware counters; without them only the
 * requests-per-CPU-second ratio is reported). Run with --rounds 21 for the figure.
 */
export const telemetryScenario = defineLoadComparison<Env>({
  name: 'telemetry',
  title: 'Cluster telemetry on vs off (data plane following a control plane over Redis)',
  description:
    'GET 100 B through a data plane that follows a control plane over Redis, with GATEWAY_TELEMETRY=off and on. ' +
    'Goal: telemetry on costs at most 3 % more instructions per request (ratio off/on >= 0.97); req/CPU-s beside it.',
  cases: CASES,
  baseline: 'off',
  goals: [{ variant: 'on', metric: 'instructionsPerRequest', atLeast: 0.97 }],
  prepare: async (ctx) => {
    const upstream = await startBenchServer(ctx.processes, 'upstream', 'upstream', [], ctx.options.profileDir);
    const controlPlane = await startBenchControlPlane(ctx, 'telemetry-control-plane', BENCH_REDIS_URL);
    await controlPlane.api.expect(201, 'POST', '/api/routes', { id: 'tel', path: `${PREFIX}/*`, upstream: upstream.origin });
    return { env: { upstream, controlPlane }, observe: { upstream: upstream.pid, 'control plane': controlPlane.process.pid } };
  },
  variants: [
    { name: 'off', label: 'telemetry off', start: (env, ctx) => follower(env, ctx, 'data-plane-telemetry-off', 'off') },
    { name: 'on', label: 'telemetry on', start: (env, ctx) => follower(env, ctx, 'data-plane-telemetry-on', 'on') },
  ],
});
