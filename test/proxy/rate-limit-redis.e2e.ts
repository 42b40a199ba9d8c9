import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import { refusedPort, request, startGatewayProcess, startUpstream, type GatewayProcess, type LoopbackUpstream } from '@gateway/testing';

const REDIS_PORT = 6379;
/** Unique per run: the route ids are part of every rate-limit key in the shared Redis. */
const RUN = `t${process.pid}${randomBytes(3).toString('hex')}`;
const STRATEGIES = ['token-bucket', 'fixed-window', 'sliding-window', 'leaky-bucket'] as const;

/** One Redis command over RESP (the test project has no Redis client of its own). */
function redis(...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(REDIS_PORT, '127.0.0.1');
    let reply = '';
    socket.on('error', reject);
    socket.on('data', (chunk) => {
      reply += chunk.toString('utf8');
      if (reply.endsWith('\r\n')) {
        socket.end();
        resolve(reply);
      }
    });
    socket.write(`*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`);
  });
}

/** A TCP proxy in front of Redis that a test can make slow (stop forwarding) or cut (refuse and reset). */
async function startRedisProxy(): Promise<{ port: number; stall(on: boolean): void; cut(): Promise<void>; restore(): Promise<void>; close(): Promise<void> }> {
  const pairs = new Set<[net.Socket, net.Socket]>();
  let stalled = false;
  const server = net.createServer((client) => {
    const upstream = net.connect(REDIS_PORT, '127.0.0.1');
    const pair: [net.Socket, net.Socket] = [client, upstream];
    pairs.add(pair);
    if (stalled) client.pause();
    client.pipe(upstream);
    upstream.pipe(client);
    const drop = (): void => {
      client.destroy();
      upstream.destroy();
      pairs.delete(pair);
    };
    client.on('error', drop);
    upstream.on('error', drop);
    client.on('close', drop);
    upstream.on('close', drop);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    stall(on) {
      stalled = on;
      for (const [client] of pairs) {
        if (on) client.pause();
        else client.resume();
      }
    },
    cut: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const [client, upstream] of pairs) {
          client.destroy();
          upstream.destroy();
        }
      }),
    restore: () => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        for (const [client, upstream] of pairs) {
          client.destroy();
          upstream.destroy();
        }
        if (server.listening) server.close(() => resolve());
        else resolve();
      }),
  };
}

/** Ten days: no refill and no fixed-window boundary (epoch-aligned) during a test. */
const WINDOW = 864_000_000;

function config(upstream: LoopbackUpstream, max: number): string {
  return `
version: "1.0.0"
routes:
${STRATEGIES.map((s) => `  - { id: ${RUN}-${s}, path: /${s}/*, upstream: "${upstream.origin}", rateLimit: { enabled: true, max: ${max}, windowMs: ${WINDOW}, strategy: ${s}, scope: route } }`).join('\n')}
  - { id: ${RUN}-tenant, path: /tenant/*, upstream: "${upstream.origin}", rateLimit: { enabled: true, max: ${max}, windowMs: ${WINDOW}, keyExpression: "header:x-k" } }
`;
}

async function deleteRunKeys(): Promise<void> {
  const reply = await redis('KEYS', `gateway:rl:${RUN}-*`);
  const keys = [...reply.matchAll(/\r\n([^$*\r\n][^\r\n]*)/g)].map((m) => m[1] as string);
  if (keys.length > 0) await redis('DEL', ...keys);
}

describe('rate limiting with the Redis store', () => {
  let upstream: LoopbackUpstream;
  const gateways: GatewayProcess[] = [];

  before(async () => {
    assert.match(await redis('PING'), /PONG/, 'Redis must run on 127.0.0.1:6379');
    upstream = await startUpstream({ handler: (_req, res) => res.end('ok') });
  });

  after(async () => {
    await Promise.all(gateways.map((g) => g.stop()));
    await upstream?.close();
    await deleteRunKeys();
  });

  test('three data planes share one limit exactly, for every strategy', async () => {
    const max = 12;
    const planes = await Promise.all(
      // Exactness is the claim here, not the fallback: a busy CI machine may take longer than the
      // default 50 ms to answer, so the planes wait up to 2 s for Redis before answering locally.
      [0, 1, 2].map(() =>
        startGatewayProcess({
          config: config(upstream, max),
          env: { REDIS_URL: `redis://127.0.0.1:${REDIS_PORT}`, LOG_LEVEL: 'info', RATE_LIMIT_REDIS_TIMEOUT_MS: '2000' },
        }),
      ),
    );
    gateways.push(...planes);
    for (const strategy of STRATEGIES) {
      // 3 x 10 concurrent requests, spread over the planes.
      const results = await Promise.all(
        Array.from({ length: 30 }, (_, i) => request(`${(planes[i % 3] as GatewayProcess).url}/${strategy}/x`).then((r) => r.status)),
      );
      const fellBack = planes.some((p) => p.output.some((line) => line.includes('local store')));
      assert.equal(results.filter((s) => s === 200).length, max, `${strategy}: accepted across the planes${fellBack ? ' (a plane fell back to its local store: Redis slower than 2 s)' : ''}`);
      assert.equal(results.filter((s) => s === 429).length, 30 - max);
    }
    const keys = await redis('KEYS', `gateway:rl:${RUN}-token-bucket:*`);
    assert.match(keys, new RegExp(`gateway:rl:[^:]+-token-bucket:token-bucket:${WINDOW}:route`), 'key format: gateway:rl:<route>:<strategy>:<window>:<scope>');
  });

  test('Redis unreachable from the start: the local store limits, never a 5xx', async () => {
    const closed = await refusedPort();
    const gateway = await startGatewayProcess({ config: config(upstream, 3), env: { REDIS_URL: `redis://127.0.0.1:${closed}` } });
    gateways.push(gateway);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i += 1) statuses.push((await request(`${gateway.url}/token-bucket/x`)).status);
    assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
  });

  test('Redis slow, then cut, then back during limited traffic: 0 5xx, and the limiter returns to Redis', async () => {
    const proxy = await startRedisProxy();
    try {
      const gateway = await startGatewayProcess({ config: config(upstream, 1000), env: { REDIS_URL: `redis://127.0.0.1:${proxy.port}`, LOG_LEVEL: 'info' } });
      gateways.push(gateway);
      const statuses: number[] = [];
      let n = 0;
      const burst = async (count: number): Promise<void> => {
        const results = await Promise.all(
          Array.from({ length: count }, () => request(`${gateway.url}/tenant/x`, { headers: { 'x-k': `k${(n += 1) % 7}` } }).then((r) => r.status)),
        );
        statuses.push(...results);
      };
      await burst(20);
      proxy.stall(true);
      await burst(20);
      await burst(20);
      proxy.stall(false);
      await proxy.cut();
      await gateway.waitForOutput('rate limiter uses the local store', 5000);
      await burst(20);
      await burst(20);
      await proxy.restore();
      await gateway.waitForOutput('rate limiter uses Redis', 10_000);
      // Counting happens in Redis again: a fresh key appears there. The next requests after the
      // reconnect may still land inside the short local back-off, so poll (bounded).
      let found = false;
      for (let i = 0; i < 100 && !found; i += 1) {
        statuses.push((await request(`${gateway.url}/tenant/x`, { headers: { 'x-k': 'after-restore' } })).status);
        found = /after-restore/.test(await redis('KEYS', `gateway:rl:${RUN}-tenant:*after-restore*`));
        if (!found) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.ok(found, 'the limiter counts in Redis again');
      assert.deepEqual(
        statuses.filter((s) => s >= 500),
        [],
        'no 5xx while Redis was slow or down',
      );
      assert.ok(statuses.every((s) => s === 200));
    } finally {
      await proxy.close();
    }
  });
});
