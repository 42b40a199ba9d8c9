import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InProcessBus, latencyBucket, parseTelemetryWindow, TELEMETRY_CHANNEL, type MessageBus, type TelemetryWindow } from '@gateway/events';
import { RedisBus } from '@gateway/events/redis-bus';
import { startRedisServer } from '@gateway/testing';
import Redis from 'ioredis';
import type { Logger } from '../../engine/ports';
import { ProcessGaugeSampler } from './process-gauges';
import { TelemetryPublisher } from './telemetry-publisher';
import { TelemetryRegistry } from './telemetry-registry';

const warnings: string[] = [];
const logger: Logger = { debug: () => undefined, info: () => undefined, warn: (_f, m) => warnings.push(m), error: () => undefined };

function publisher(bus: MessageBus, registry: TelemetryRegistry): TelemetryPublisher {
  return new TelemetryPublisher({
    bus,
    registry,
    gauges: new ProcessGaugeSampler(() => 0),
    logger,
    sources: {
      instanceId: 'dp-1',
      version: '0.1.0',
      address: () => '127.0.0.1:8080',
      configRevision: () => 1,
      takeTopKeys: () => undefined,
      routeBreaker: () => undefined,
      routeHealth: () => undefined,
      breakers: () => ({}),
      healthChecks: () => ({}),
    },
  });
}

const macrotask = () => new Promise((resolve) => setImmediate(resolve));

test('a window that finds the previous publish still pending (Redis busy) is dropped and counted, never queued', async () => {
  const redis = await startRedisServer();
  const bus = new RedisBus(redis.url, { commandTimeoutMs: 10_000, logger: { warn: () => undefined, info: () => undefined } });
  const blocker = new Redis(redis.url);
  const registry = new TelemetryRegistry();
  const telemetry = publisher(bus, registry);
  try {
    for (let tries = 0; !(await bus.ping()); tries += 1) {
      if (tries === 100) assert.fail('the bus never connected to redis-server');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // A script that spins keeps the single-threaded server from answering anyone meanwhile.
    const busy = blocker.eval('local i = 0 while i < 2e8 do i = i + 1 end return i', 0);
    await new Promise((resolve) => setTimeout(resolve, 100));
    registry.forRoute('r').record(200, 0, 0, 10, 20, 3, latencyBucket(3));
    telemetry.flush(1000);
    await macrotask();
    registry.forRoute('r').record(200, 0, 0, 10, 20, 3, latencyBucket(3));
    telemetry.flush(2000);
    telemetry.flush(3000);
    assert.equal(telemetry.dropped, 2);
    assert.deepEqual(registry.take(), { routes: [], upstreams: [] }, 'the dropped windows were not kept for later');
    await busy;
  } finally {
    telemetry.close();
    blocker.disconnect();
    await bus.close();
    await redis.stop();
  }
});

test('with a bus that answers, every window goes out once, named by its second', async () => {
  const bus = new InProcessBus();
  const seen: TelemetryWindow[] = [];
  await bus.subscribe<unknown>(TELEMETRY_CHANNEL, (w) => seen.push(parseTelemetryWindow(w)));
  const registry = new TelemetryRegistry();
  const telemetry = publisher(bus, registry);
  registry.forRoute('r').record(503, 5, 1, 10, 20, 3, latencyBucket(3));
  telemetry.flush(1000);
  await macrotask();
  telemetry.flush(2000);
  await macrotask();
  telemetry.close();
  await bus.close();
  assert.equal(telemetry.dropped, 0);
  assert.deepEqual(
    seen.map((w) => [w.start, w.routes.map((r) => [r.routeId, r.requests, r.statusClasses[3], r.outcomes[5], r.retries])]),
    [
      [0, [['r', 1, 1, 1, 1]]],
      [1000, []],
    ],
  );
});
