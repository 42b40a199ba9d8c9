import http from 'node:http';
import { dataPlaneEnv, EMPTY_PROXY_CONFIG } from '@gateway/testing';
import { BENCH_REDIS_URL, startBenchControlPlane, type BenchControlPlane } from '../harness/cluster';
import { defineLoadComparison, type LoadCase, type RunningVariant } from '../harness/comparison';
import { startGateway, type GatewayLaunch } from '../harness/gateway';
import { startBenchServer, type ServerProcess } from '../harness/processes';
import type { HarnessContext } from '../harness/types';

const CASES: readonly LoadCase[] = [{ name: 'body-100b', label: '100 B body', expectedBodyBytes: 100 }];
const PREFIX = '/tel';
const READY_WITHIN_MS = 10_000;

export interface TelemetryBenchEnv {
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

/** The upstream and a control plane over Redis with route `tel` on /tel/* (both telemetry scenarios). */
export async function prepareTelemetryBench(ctx: HarnessContext, routeExtra: Record<string, unknown> = {}): Promise<{ env: TelemetryBenchEnv; observe: Record<string, number> }> {
  const upstream = await startBenchServer(ctx.processes, 'upstream', 'upstream', [], ctx.options.profileDir);
  const controlPlane = await startBenchControlPlane(ctx, 'telemetry-control-plane', BENCH_REDIS_URL);
  await controlPlane.api.expect(201, 'POST', '/api/routes', { id: 'tel', path: `${PREFIX}/*`, upstream: upstream.origin, ...routeExtra });
  return { env: { upstream, controlPlane }, observe: { upstream: upstream.pid, 'control plane': controlPlane.process.pid } };
}

/** The request both telemetry scenarios send: GET of a 100 B body through route `tel`. */
export const TELEMETRY_BENCH_PATH = `${PREFIX}/bytes/100`;

/** A data plane following the control plane over Redis, once it serves the route. */
export async function telemetryFollower(
  env: TelemetryBenchEnv,
  ctx: HarnessContext,
  name: string,
  variantEnv: NodeJS.ProcessEnv,
  launch: GatewayLaunch = {},
  proxyYaml: string = EMPTY_PROXY_CONFIG,
): Promise<RunningVariant & { readonly process: ServerProcess }> {
  const gateway = await startGateway(ctx, name, 'data-plane', proxyYaml, {
    ...dataPlaneEnv(env.controlPlane.secrets, BENCH_REDIS_URL, env.controlPlane.process.origin),
    ...variantEnv,
  }, launch);
  const readyWithinMs = launch.startTimeoutMs ?? READY_WITHIN_MS;
  const deadline = Date.now() + readyWithinMs;
  while ((await status(gateway.origin, TELEMETRY_BENCH_PATH)) !== 200) {
    if (Date.now() > deadline) throw new Error(`${name} did not serve ${PREFIX}/* within ${readyWithinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { origin: gateway.origin, proxyPid: gateway.pid, request: () => ({ path: TELEMETRY_BENCH_PATH }), process: gateway };
}

/**
 * What cluster telemetry (issue 12) costs per request: two data planes that follow one control
 * plane over Redis, one with GATEWAY_TELEMETRY=off, one with it on (the default: per-request tallies
 * and a latency-sketch bucket, one window published a second). Goal: at most 3 % more
 * instructions per request with telemetry on (hardware counters; without them only the
 * requests-per-CPU-second ratio is reported). Run with --rounds 21 for the issue's figure.
 */
export const telemetryScenario = defineLoadComparison<TelemetryBenchEnv>({
  name: 'telemetry',
  title: 'Cluster telemetry on vs off (data plane following a control plane over Redis)',
  description:
    'GET 100 B through a data plane that follows a control plane over Redis, with GATEWAY_TELEMETRY=off and on. ' +
    'Goal: telemetry on costs at most 3 % more instructions per request (ratio off/on >= 0.97); req/CPU-s beside it.',
  cases: CASES,
  baseline: 'off',
  goals: [{ variant: 'on', metric: 'instructionsPerRequest', atLeast: 0.97 }],
  prepare: (ctx) => prepareTelemetryBench(ctx),
  variants: [
    { name: 'off', label: 'telemetry off', start: (env, ctx) => telemetryFollower(env, ctx, 'data-plane-telemetry-off', { GATEWAY_TELEMETRY: 'off' }) },
    { name: 'on', label: 'telemetry on', start: (env, ctx) => telemetryFollower(env, ctx, 'data-plane-telemetry-on', { GATEWAY_TELEMETRY: 'on' }) },
  ],
});
