import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ROUTE_CHANGES_CHANNEL, type RouteChangeMessage } from '@gateway/events';
import type { SignedBus } from '@gateway/events';
import { request } from '@gateway/testing';
import { startControlPlaneProcess, type ControlPlaneProcess } from './control-plane-process';
import { signedRedisBus } from './signed-redis-bus';

const REDIS_URL = process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const CLUSTER_TOKEN = 'cluster-token-redis-0123456789';
const config = (upstream: string): string => `
version: "1.0.0"
routes:
  - { id: svc, path: /svc/*, upstream: "${upstream}" }
`;

async function until<T>(what: string, check: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('control plane over Redis (REDIS_URL set)', () => {
  const prefix = `e2e:${process.pid}:${randomBytes(4).toString('hex')}:`;
  let cp: ControlPlaneProcess;
  let bus: SignedBus;
  const messages: RouteChangeMessage[] = [];

  before(async () => {
    bus = signedRedisBus(REDIS_URL, prefix, CLUSTER_TOKEN);
    await bus.subscribe<RouteChangeMessage>(ROUTE_CHANGES_CHANNEL, (m) => messages.push(m));
    cp = await startControlPlaneProcess({
      config: config('http://127.0.0.1:9201'),
      env: { JWT_SECRET: 'redis-test-secret-0123456789abcdefghijklmn', CLUSTER_TOKEN, REDIS_URL, REDIS_CHANNEL_PREFIX: prefix },
    });
  });
  after(async () => {
    await cp?.stop();
    await bus?.close();
  });

  test('heartbeats with the current version arrive through Redis every second', async () => {
    await until('two heartbeats', () => (messages.filter((m) => m.kind === 'heartbeat').length >= 2 ? true : undefined));
    assert.ok(messages.filter((m) => m.kind === 'heartbeat').every((m) => m.version === 1));
  });

  test('a reconciliation publishes one reloaded message with the new version; the snapshot has it', async () => {
    cp.writeConfig(config('http://127.0.0.1:9202'));
    cp.child.kill('SIGHUP');
    await until('reloaded at version 2', () => messages.find((m) => m.kind === 'reloaded' && m.version === 2));
    // The start's own reconciliation (version 1) may have been published too; nothing else.
    assert.deepEqual(messages.filter((m) => m.kind !== 'heartbeat' && m.version > 1), [{ kind: 'reloaded', version: 2 }]);
    const snapshot = await request(`${cp.url}/internal/cluster/snapshot`, { headers: { authorization: `Bearer ${CLUSTER_TOKEN}` } });
    const body = snapshot.json<{ version: number; routes: Array<{ upstream: string }> }>();
    assert.equal(body.version, 2);
    assert.equal(body.routes[0]!.upstream, 'http://127.0.0.1:9202');
    await until('a heartbeat with version 2', () => messages.find((m) => m.kind === 'heartbeat' && m.version === 2));
  });

  test('/health/ready includes the Redis check', async () => {
    const res = await request(`${cp.url}/health/ready`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.json()['checks'], { database: 'UP', redis: 'UP' });
  });
});
