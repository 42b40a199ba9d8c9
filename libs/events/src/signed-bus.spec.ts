import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BusDropCounter, type BusDropReason } from './bus-drop-counter';
import { InProcessBus } from './in-process-bus';
import { SignedBus, type SignedEnvelope } from './signed-bus';

const TOKEN = 'current-cluster-token-0123456789';
const OLD_TOKEN = 'previous-cluster-token-0123456789';
const quiet = { warn: () => undefined };
const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** An envelope as `token` signs `message` on `channel` at `ts` (captured from a real SignedBus). */
async function envelopeOf(token: string, channel: string, message: unknown, ts = Date.now()): Promise<SignedEnvelope> {
  const wire = new InProcessBus();
  const captured: SignedEnvelope[] = [];
  await wire.subscribe<SignedEnvelope>(channel, (e) => captured.push(e));
  await new SignedBus(wire, { clusterToken: token, logger: quiet, now: () => ts }).publish(channel, message);
  await tick();
  assert.equal(captured.length, 1);
  return captured[0]!;
}

interface Case {
  name: string;
  /** What arrives on channel 'routes' (each in turn). */
  raw: () => Promise<unknown[]>;
  receiver?: { previousClusterToken?: string; clusterToken?: string };
  delivered: unknown[];
  dropped: Partial<Record<BusDropReason, number>>;
}

const MESSAGE = { kind: 'upserted', version: 7, route: { id: 'r', path: '/r', upstream: 'http://127.0.0.1:9' } };

const cases: Case[] = [
  { name: 'signed with the current key: delivered', raw: async () => [await envelopeOf(TOKEN, 'routes', MESSAGE)], delivered: [MESSAGE], dropped: {} },
  { name: 'unsigned (a bare message, as before issue 11)', raw: async () => [MESSAGE, 'text', 42, null, [1]], delivered: [], dropped: { unsigned: 5 } },
  {
    name: 'malformed envelopes (wrong types, version, lengths)',
    raw: async () => {
      const good = await envelopeOf(TOKEN, 'routes', MESSAGE);
      return [{ ...good, v: 2 }, { ...good, ts: '1' }, { ...good, id: 'short' }, { ...good, sig: 'zz' }, { ...good, body: { x: 1 } }, { sig: good.sig }, { ...good, kid: good.kid.toUpperCase() }];
    },
    delivered: [],
    dropped: { malformed: 7 },
  },
  {
    name: 'forged: body, timestamp or id changed after signing, or a made-up signature',
    raw: async () => {
      const good = await envelopeOf(TOKEN, 'routes', MESSAGE);
      const evil = JSON.stringify({ ...MESSAGE, route: { ...MESSAGE.route, upstream: 'http://attacker.example' } });
      const flipped = (good.sig[0] === '0' ? '1' : '0') + good.sig.slice(1);
      return [{ ...good, body: evil }, { ...good, ts: good.ts + 1 }, { ...good, id: 'f'.repeat(32) }, { ...good, sig: flipped }, { ...good, sig: '0'.repeat(64) }];
    },
    delivered: [],
    dropped: { forged: 5 },
  },
  { name: 'signed with another token: unknown key', raw: async () => [await envelopeOf('some-other-cluster-token-000000', 'routes', MESSAGE)], delivered: [], dropped: { unknown_key: 1 } },
  {
    name: 'replayed onto another channel (channel rewritten: forged; copied as is: wrong channel)',
    raw: async () => {
      const commands = await envelopeOf(TOKEN, 'commands', MESSAGE);
      return [{ ...commands, channel: 'routes' }, commands];
    },
    delivered: [],
    dropped: { forged: 1, wrong_channel: 1 },
  },
  {
    name: 'stale: older or newer than the 60 s window',
    raw: async () => [await envelopeOf(TOKEN, 'routes', MESSAGE, Date.now() - 61_000), await envelopeOf(TOKEN, 'routes', MESSAGE, Date.now() + 61_000)],
    delivered: [],
    dropped: { stale: 2 },
  },
  {
    name: 'inside the window, both ways: delivered',
    raw: async () => [await envelopeOf(TOKEN, 'routes', 1, Date.now() - 50_000), await envelopeOf(TOKEN, 'routes', 2, Date.now() + 50_000)],
    delivered: [1, 2],
    dropped: {},
  },
  {
    name: 'replayed: the same envelope again within the window',
    raw: async () => {
      const good = await envelopeOf(TOKEN, 'routes', MESSAGE);
      return [good, good, { ...good }];
    },
    delivered: [MESSAGE],
    dropped: { replayed: 2 },
  },
  {
    name: 'rotation: signed with the previous token, the receiver has CLUSTER_TOKEN_PREVIOUS: delivered',
    raw: async () => [await envelopeOf(OLD_TOKEN, 'routes', MESSAGE), await envelopeOf(TOKEN, 'routes', 'new')],
    receiver: { previousClusterToken: OLD_TOKEN },
    delivered: [MESSAGE, 'new'],
    dropped: {},
  },
  {
    name: 'rotation over: the previous token is no longer accepted',
    raw: async () => [await envelopeOf(OLD_TOKEN, 'routes', MESSAGE)],
    delivered: [],
    dropped: { unknown_key: 1 },
  },
  {
    name: 'rotation, a sender already on the new token, a receiver not yet given it: unknown key',
    raw: async () => [await envelopeOf(TOKEN, 'routes', MESSAGE)],
    receiver: { clusterToken: OLD_TOKEN },
    delivered: [],
    dropped: { unknown_key: 1 },
  },
];

for (const c of cases) {
  test(`SignedBus receives: ${c.name}`, async () => {
    const wire = new InProcessBus();
    const receiver = new SignedBus(wire, { clusterToken: c.receiver?.clusterToken ?? TOKEN, logger: quiet, ...(c.receiver?.previousClusterToken === undefined ? {} : { previousClusterToken: c.receiver.previousClusterToken }) });
    const delivered: unknown[] = [];
    await receiver.subscribe('routes', (m) => delivered.push(m));
    for (const raw of await c.raw()) {
      await wire.publish('routes', raw);
      await tick();
    }
    assert.deepEqual(delivered, c.delivered);
    const expected = Object.fromEntries(Object.keys(receiver.dropCounts()).map((reason) => [reason, c.dropped[reason as BusDropReason] ?? 0]));
    assert.deepEqual(receiver.dropCounts(), expected);
    await receiver.close();
  });
}

test('two buses on one wire: what one publishes the other delivers once to every listener of the channel, a throwing listener harms no other', async () => {
  const wire = new InProcessBus();
  const a = new SignedBus(wire, { clusterToken: TOKEN, logger: quiet });
  const b = new SignedBus(wire, { clusterToken: TOKEN, logger: quiet });
  const first: unknown[] = [];
  const second: unknown[] = [];
  await b.subscribe('c', (m) => first.push(m));
  await b.subscribe('c', () => {
    throw new Error('listener bug');
  });
  const stop = await b.subscribe('c', (m) => second.push(m));
  await a.publish('c', { n: 1 });
  await tick();
  stop();
  await a.publish('c', { n: 2 });
  await tick();
  assert.deepEqual(first, [{ n: 1 }, { n: 2 }]);
  assert.deepEqual(second, [{ n: 1 }]);
  assert.equal(Object.values(b.dropCounts()).reduce((x, y) => x + y, 0), 0);
  // Listeners get the JSON round-trip, as over Redis: a Date becomes its ISO string.
  const at = new Date(0);
  await a.publish('c', { at });
  await tick();
  assert.deepEqual(first.at(-1), { at: at.toISOString() });
});

test('a message that is not a JSON value is refused at publish, naming the channel', async () => {
  const bus = new SignedBus(new InProcessBus(), { clusterToken: TOKEN, logger: quiet });
  await assert.rejects(bus.publish('routes', undefined), /routes.*not a JSON value/);
});

test('drops are logged as a summary at most once per interval, never a line per message', async () => {
  let now = 1_000_000;
  const lines: Array<{ message: string; fields?: Record<string, unknown> }> = [];
  const drops = new BusDropCounter({ logger: { warn: (message, fields) => lines.push({ message, ...(fields === undefined ? {} : { fields }) }) }, summaryIntervalMs: 60_000, now: () => now });
  const wire = new InProcessBus();
  const receiver = new SignedBus(wire, { clusterToken: TOKEN, drops, logger: quiet, now: () => now });
  await receiver.subscribe('routes', () => assert.fail('nothing here is deliverable'));
  const forged = { ...(await envelopeOf('another-cluster-token-0000000000', 'routes', MESSAGE, now)) };
  for (let i = 0; i < 1000; i += 1) await wire.publish('routes', i % 2 === 0 ? forged : MESSAGE);
  await tick();
  assert.equal(lines.length, 1, 'the first drop is logged at once, the rest wait for the summary');
  assert.deepEqual(lines[0]!.fields?.['reasons'], { unknown_key: 1 });
  now += 60_000;
  await wire.publish('routes', MESSAGE);
  await tick();
  assert.equal(lines.length, 2);
  assert.deepEqual(lines[1]!.fields?.['reasons'], { unknown_key: 499, unsigned: 501 });
  assert.equal(receiver.dropCounts().unknown_key, 500);
  assert.equal(receiver.dropCounts().unsigned, 501);
  await receiver.close();
});
