import { randomBytes } from 'node:crypto';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import Redis from 'ioredis';
import { refusedPort, startRedisServer } from '@gateway/testing';
import { RedisBus, type RedisBusLogger } from './redis-bus';

// The real Redis of the test environment (contracts); every test uses its own channel prefix.
const REDIS_URL = process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const quiet: RedisBusLogger = { warn: () => undefined, info: () => undefined };
const unique = (): string => `test:${process.pid}:${randomBytes(4).toString('hex')}:`;
const buses: RedisBus[] = [];
after(async () => {
  for (const bus of buses) await bus.close();
});

function bus(url: string, options: ConstructorParameters<typeof RedisBus>[1] = {}): RedisBus {
  const created = new RedisBus(url, { logger: quiet, ...options });
  buses.push(created);
  return created;
}

async function until<T>(what: string, check: () => T | undefined | Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const connected = (b: RedisBus): Promise<true> => until('redis connection', async () => ((await b.ping()) ? true : undefined));

test('a message published on one bus reaches subscribers of that channel on another, as JSON', async () => {
  const prefix = unique();
  const publisher = bus(REDIS_URL, { channelPrefix: prefix });
  const subscriber = bus(REDIS_URL, { channelPrefix: prefix });
  await connected(publisher);
  const seen: unknown[] = [];
  const other: unknown[] = [];
  await subscriber.subscribe('changes', (m) => seen.push(m));
  await subscriber.subscribe('commands', (m) => other.push(m));
  await publisher.publish('changes', { kind: 'upserted', version: 1 });
  await publisher.publish('changes', { kind: 'deleted', version: 2, routeId: 'r' });
  await until('two messages', () => (seen.length === 2 ? true : undefined));
  assert.deepEqual(seen, [{ kind: 'upserted', version: 1 }, { kind: 'deleted', version: 2, routeId: 'r' }]);
  assert.deepEqual(other, []);
});

test('the channel prefix isolates buses; unsubscribe stops delivery; a throwing listener harms no other', async () => {
  const a = bus(REDIS_URL, { channelPrefix: unique() });
  const b = bus(REDIS_URL, { channelPrefix: unique() });
  await connected(a);
  const seenB: unknown[] = [];
  const seenA: unknown[] = [];
  await b.subscribe('c', (m) => seenB.push(m));
  await a.subscribe('c', () => {
    throw new Error('listener bug');
  });
  const stop = await a.subscribe('c', (m) => seenA.push(m));
  await a.publish('c', 1);
  await until('delivery on a', () => (seenA.length === 1 ? true : undefined));
  stop();
  await a.publish('c', 2);
  await a.publish('c', 3);
  // Wait for a later message on a fresh subscription, so message 2 had every chance to arrive.
  const marker: unknown[] = [];
  await a.subscribe('marker', (m) => marker.push(m));
  await a.publish('marker', 'done');
  await until('marker', () => (marker.length === 1 ? true : undefined));
  assert.deepEqual(seenA, [1]);
  assert.deepEqual(seenB, []);
});

test('the subscriber connection is killed: onReconnect fires once it is subscribed again, delivery resumes', async () => {
  const prefix = unique();
  const name = `spec-${randomBytes(4).toString('hex')}`;
  const subject = bus(REDIS_URL, { channelPrefix: prefix, connectionName: name });
  const publisher = bus(REDIS_URL, { channelPrefix: prefix });
  await connected(publisher);
  const seen: unknown[] = [];
  await subject.subscribe('c', (m) => seen.push(m));
  let reconnects = 0;
  subject.onReconnect(() => (reconnects += 1));

  const admin = new Redis(REDIS_URL, { lazyConnect: false });
  try {
    const list = (await admin.client('LIST')) as string;
    const line = list.split('\n').find((l) => l.includes(`name=gateway-bus-sub-${name} `));
    assert.ok(line, 'the subscriber connection is named');
    const id = /\bid=(\d+)/.exec(line)![1]!;
    await admin.client('KILL', 'ID', id);
  } finally {
    admin.disconnect();
  }
  await until('onReconnect', () => (reconnects === 1 ? true : undefined));
  await publisher.publish('c', 'after');
  await until('delivery after reconnect', () => (seen.includes('after') ? true : undefined));
});

test('Redis absent: publish and subscribe return without throwing; when Redis starts, the bus connects and reports a reconnect', async (t) => {
  const port = await refusedPort();
  const url = `redis://127.0.0.1:${port}`;
  const subject = bus(url, { channelPrefix: unique(), commandTimeoutMs: 200, connectTimeoutMs: 200 });
  let reconnects = 0;
  subject.onReconnect(() => (reconnects += 1));
  await subject.publish('c', 'lost');
  const seen: unknown[] = [];
  await subject.subscribe('c', (m) => seen.push(m));
  assert.equal(await subject.ping(), false);

  const server = await startRedisServer({ port });
  t.after(() => server.stop());
  await until('reconnect after Redis started', () => (reconnects >= 1 ? true : undefined));
  await connected(subject);
  await subject.publish('c', 'delivered');
  await until('delivery', () => (seen.includes('delivered') ? true : undefined));
  assert.ok(!seen.includes('lost'), 'a publish while Redis was away is dropped, not replayed');
});
