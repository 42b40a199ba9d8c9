import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ROUTE_CHANGES_CHANNEL, type RouteChangeMessage } from '@gateway/events';
import type { SignedBus } from '@gateway/events';
import { request } from '@gateway/testing';
import { startControlPlaneProcess, type ControlPlaneProcess } from './control-plane-process';
import { signedRedisBus } from './signed-redis-bus';

const REDIS_URL = process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const JWT_SECRET = 'routes-propagation-secret-0123456789abcdefgh';
const CLUSTER_TOKEN = 'routes-propagation-cluster-token-0123';

function adminToken(): string {
  const encode = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const body = `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode({ sub: randomUUID(), email: 'admin@example.com', role: 'admin', iat: now, exp: now + 600, iss: 'gateway', jti: randomUUID() })}`;
  return `${body}.${createHmac('sha256', JWT_SECRET).update(body).digest('base64url')}`;
}

async function until<T>(what: string, check: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('routes API changes reach the bus (Redis)', () => {
  const prefix = `e2e-routes:${process.pid}:${randomBytes(4).toString('hex')}:`;
  let cp: ControlPlaneProcess;
  let bus: SignedBus;
  const messages: RouteChangeMessage[] = [];
  const token = adminToken();

  before(async () => {
    bus = signedRedisBus(REDIS_URL, prefix, CLUSTER_TOKEN);
    await bus.subscribe<RouteChangeMessage>(ROUTE_CHANGES_CHANNEL, (m) => messages.push(m));
    cp = await startControlPlaneProcess({ env: { JWT_SECRET, CLUSTER_TOKEN, REDIS_URL, REDIS_CHANNEL_PREFIX: prefix } });
  });
  after(async () => {
    await cp?.stop();
    await bus?.close();
  });

  const call = (method: string, urlPath: string, body?: unknown) =>
    request(`${cp.url}${urlPath}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  test('every change publishes one message whose version is exactly one above the previous; refused changes publish none', async () => {
    const start = await until('a heartbeat', () => messages.find((m) => m.kind === 'heartbeat'));
    const base = start.version;
    assert.equal((await call('POST', '/api/routes', { id: 'p1', path: '/p1', upstream: 'http://127.0.0.1:9301' })).status, 201);
    assert.equal((await call('POST', '/api/routes', { id: 'p2', path: '/p1', upstream: 'http://127.0.0.1:9301' })).status, 409);
    assert.equal((await call('PATCH', '/api/routes/p1', { description: 'x' })).status, 200);
    assert.equal((await call('POST', '/api/routes/p1/toggle')).status, 200);
    assert.equal((await call('POST', '/api/routes/p1/clone')).status, 201);
    assert.equal((await call('DELETE', '/api/routes/p1')).status, 204);
    assert.equal((await call('POST', '/api/routes/p1/restore')).status, 200);
    assert.equal((await call('DELETE', '/api/routes/p1?permanent=true')).status, 204);

    const changes = await until('7 change messages', () => {
      const seen = messages.filter((m) => m.kind !== 'heartbeat' && m.version > base);
      return seen.length >= 7 ? seen : undefined;
    });
    const summary = changes.map((m) => [m.kind, m.version, m.kind === 'upserted' ? [m.route.id, m.route.enabled] : m.kind === 'deleted' ? m.routeId : null]);
    assert.deepEqual(summary, [
      ['upserted', base + 1, ['p1', true]],
      ['upserted', base + 2, ['p1', true]],
      ['upserted', base + 3, ['p1', false]],
      ['upserted', base + 4, ['p1-copy', false]],
      ['deleted', base + 5, 'p1'],
      ['upserted', base + 6, ['p1', false]],
      ['deleted', base + 7, 'p1'],
    ]);
    const created = changes[0] as Extract<RouteChangeMessage, { kind: 'upserted' }>;
    assert.equal(created.route.source, 'api');
    assert.equal(typeof created.route.createdAt, 'string');
  });
});
