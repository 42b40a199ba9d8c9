// Runs the data plane's telemetry hook (the `telemetry` policy's onComplete, compiled for a route
// as when routes load) `count` times on a finished 200 exchange, so that valgrind can count what
// telemetry adds to a request: node dist/servers/telemetry-hook-loop.js <count>. The compiled data
// plane is loaded by path (the bench does not depend on the data plane's package).
import path from 'node:path';
import { REPO_ROOT } from '@gateway/testing';

interface Hook {
  onComplete(exchange: unknown): void;
}
const dist = path.join(REPO_ROOT, 'apps', 'data-plane', 'dist', 'policies', 'telemetry');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { telemetryPolicy } = require(path.join(dist, 'telemetry.policy.js')) as { telemetryPolicy: { create(route: unknown, env: unknown): Hook } };
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { TelemetryRegistry } = require(path.join(dist, 'telemetry-registry.js')) as { TelemetryRegistry: new () => { take(): { routes: unknown[] } } };

const engine = path.join(REPO_ROOT, 'apps', 'data-plane', 'dist', 'engine');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ServiceRegistry } = require(path.join(engine, 'service-registry.js')) as { ServiceRegistry: new () => { provide(key: unknown, value: unknown): unknown } };
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { TELEMETRY_TALLIES } = require(path.join(dist, 'telemetry-services.js')) as { TELEMETRY_TALLIES: unknown };

const count = Number(process.argv[2]);
if (!Number.isSafeInteger(count) || count < 0) throw new Error('usage: telemetry-hook-loop.js <count>');
const registry = new TelemetryRegistry();
// The services as the composition root (start.ts) wires them: the policy finds its tallies by key.
const provided = new ServiceRegistry();
provided.provide(TELEMETRY_TALLIES, registry);
const hook = telemetryPolicy.create({ id: 'tel', path: '/tel/*', upstream: 'http://127.0.0.1:9' }, { services: { provided } });
// A keep-alive connection's socket counters move by one request's bytes each time.
const socket = { bytesRead: 0, _bytesDispatched: 0 };
const exchange = { req: { socket }, status: 200, attempts: 1, cacheHit: false, errorCode: undefined, upstreamResponse: {}, startedAt: performance.now() };
for (let i = 0; i < count; i += 1) {
  socket.bytesRead += 78;
  socket._bytesDispatched += 243;
  hook.onComplete(exchange);
}
const [route] = registry.take().routes as Array<{ requests: number }>;
if ((route?.requests ?? 0) !== count) throw new Error(`counted ${route?.requests} of ${count}`);
