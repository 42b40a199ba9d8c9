import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Redis from 'ioredis';
import { BusDropCounter } from './bus-drop-counter';
import { RedisBus } from './redis-bus';
import { SignedBus } from './signed-bus';

const REDIS_URL = process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const TOKEN = 'signed-redis-bus-cluster-token-0123';

async function until(what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A SignedBus over a RedisBus sharing one drop counter, as the planes build theirs. */
function signedRedisBus(prefix: string, lines: string[]): SignedBus {
  const logger = { warn: (message: string) => lines.push(message), info: () => undefined };
  const drops = new BusDropCounter({ logger });
  return new SignedBus(new RedisBus(REDIS_URL, { channelPrefix: prefix, logger, onUndecodable: (channel, reason) => drops.record(reason, channel), maxMessageLength: 64 * 1024 }), { clusterToken: TOKEN, drops, logger });
}

test('over real Redis: signed messages pass; garbage bytes, oversized, unsigned and forged ones are counted, one log line in all, and the process lives', async () => {
  const prefix = `test:${process.pid}:${randomBytes(4).toString('hex')}:`;
  const lines: string[] = [];
  const sender = signedRedisBus(prefix, []);
  const receiver = signedRedisBus(prefix, lines);
  const raw = new Redis(REDIS_URL);
  try {
    const seen: unknown[] = [];
    await receiver.subscribe('routes', (m) => seen.push(m));
    await until('a signed message', () => {
      void sender.publish('routes', { kind: 'heartbeat', version: 1 });
      return seen.length > 0;
    });
    assert.deepEqual(seen[0], { kind: 'heartbeat', version: 1 });
    const channel = `${prefix}routes`;
    await raw.publish(channel, '{"kind":"upserted"');
    await raw.publish(channel, Buffer.from([0xff, 0x00, 0x7b]));
    await raw.publish(channel, JSON.stringify({ kind: 'upserted', version: 2, route: { id: 'evil' } }));
    await raw.publish(channel, JSON.stringify({ v: 1, kid: '0'.repeat(16), ts: Date.now(), id: '0'.repeat(32), channel: 'routes', body: '{}', sig: '0'.repeat(64) }));
    await raw.publish(channel, `"${'x'.repeat(70 * 1024)}"`);
    await until('five drops', () => Object.values(receiver.dropCounts()).reduce((a, b) => a + b, 0) === 5);
    assert.deepEqual(
      Object.fromEntries(Object.entries(receiver.dropCounts()).filter(([, n]) => n > 0)),
      { malformed: 2, unsigned: 1, unknown_key: 1, too_large: 1 },
    );
    assert.equal(lines.filter((l) => l.includes('dropped')).length, 1, lines.join('\n'));
    assert.ok(seen.every((m) => (m as { kind: string }).kind === 'heartbeat'), 'nothing unsigned reached the listener');
  } finally {
    raw.disconnect();
    await sender.close();
    await receiver.close();
  }
});
