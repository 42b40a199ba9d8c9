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

/** Redis's own clock (TIME), in ms: the clock the scripts count on. */
async function redisNow(): Promise<number> {
  const [seconds, micros] = [...(await redis('TIME')).matchAll(/\r\n(\d+)\r\n/g)].map((m) => Number(m[1]));
  return (seconds as number) * 1000 + Math.floor((micros as number) / 1000);
}

/** Bounds on what a strategy answers for the third request of three (max 2), in ms of Redis time. */
interface Expected {
  resetAt: [number, number];
  retryAfterMs: [number, number];
}

/**
 * What each script must answer for requests 1 and 2 accepted and 3 refused, all sent between Redis
 * times t0 and t1 (d = t1 - t0), with max 2 per window W: the arithmetic of docs/resilience.md.
 */
function expectedThird(strategy: (typeof STRATEGIES)[number], t0: number, t1: number, W: number): Expected {
  const d = t1 - t0;
  switch (strategy) {
    case 'token-bucket':
    case 'leaky-bucket':
      // One unit back every W/2 ms, counted from the first request: full (or empty) W after it.
      return { resetAt: [t0 + W - d, t1 + W], retryAfterMs: [W / 2 - d, W / 2] };
    case 'sliding-window':
      // Free again when the oldest entry leaves the window; the key ends a window after the newest.
      return { resetAt: [t0 + W, t1 + W], retryAfterMs: [W - d, W] };
    case 'fixed-window': {
      const end = (Math.floor(t0 / W) + 1) * W;
      return { resetAt: [end, end], retryAfterMs: [end - t1, end - t0] };
    }
  }
}

const seconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));

describe('rate limiting with the Redis store: give-back and time', () => {
  let upstream: LoopbackUpstream;
  let gateway: GatewayProcess;
  const MINUTE = 60_000;

  before(async () => {
    assert.match(await redis('PING'), /PONG/, 'Redis must run on 127.0.0.1:6379');
    upstream = await startUpstream({
      handler: (req, res) => {
        res.statusCode = req.url?.includes('fail') ? 500 : 200;
        res.end('ok');
      },
    });
    const route = (kind: string, s: string, rateLimit: string): string =>
      `  - { id: ${RUN}-${kind}-${s}, path: /${kind}/${s}/*, upstream: "${upstream.origin}", rateLimit: { enabled: true, max: 2, strategy: ${s}, scope: route, ${rateLimit} } }`;
    gateway = await startGatewayProcess({
      config: `
version: "1.0.0"
routes:
${STRATEGIES.flatMap((s) => [
  route('skipok', s, `windowMs: ${WINDOW}, skipSuccessfulRequests: true`),
  route('skipfail', s, `windowMs: ${WINDOW}, skipFailedRequests: true`),
  route('short', s, 'windowMs: 400'),
  route('minute', s, `windowMs: ${MINUTE}`),
]).join('\n')}
`,
      // Long enough that a busy machine never makes the limiter answer from its local store: every
      // decision below must come from the scripts.
      env: { REDIS_URL: `redis://127.0.0.1:${REDIS_PORT}`, LOG_LEVEL: 'info', RATE_LIMIT_REDIS_TIMEOUT_MS: '2000' },
    });
  });

  after(async () => {
    await gateway?.stop();
    await upstream?.close();
    await deleteRunKeys();
  });

  const get = (path: string) => request(`${gateway.url}${path}`);
  const statuses = async (path: string, n: number): Promise<number[]> => {
    const out: number[] = [];
    for (let i = 0; i < n; i += 1) out.push((await get(path)).status);
    return out;
  };
  const assertRedisOnly = (): void =>
    assert.deepEqual(
      gateway.output.filter((line) => line.includes('local store')),
      [],
      'every decision came from Redis',
    );

  for (const strategy of STRATEGIES) {
    test(`${strategy}: skipSuccessfulRequests and skipFailedRequests give the request back in Redis`, async () => {
      assert.deepEqual(await statuses(`/skipok/${strategy}/x`, 4), [200, 200, 200, 200], 'successes are given back');
      assert.deepEqual(await statuses(`/skipok/${strategy}/fail`, 3), [500, 500, 429]);
      assert.deepEqual(await statuses(`/skipfail/${strategy}/fail`, 4), [500, 500, 500, 500], 'failures are given back');
      assert.deepEqual(await statuses(`/skipfail/${strategy}/x`, 3), [200, 200, 429]);
      assert.match(await redis('KEYS', `gateway:rl:${RUN}-skipok-${strategy}:*`), /gateway:rl:/, 'counted in Redis');
      assertRedisOnly();
    });

    test(`${strategy}: a short window refills (or ends) in Redis; the rejection says Retry-After 1`, async () => {
      // Bounded bursts until a refusal: a fixed window may end between two requests.
      let rejection: Awaited<ReturnType<typeof get>> | undefined;
      for (let i = 0; i < 30 && rejection === undefined; i += 1) {
        const res = await get(`/short/${strategy}/x`);
        if (res.status === 429) rejection = res;
      }
      assert.ok(rejection, 'max 2 per 400 ms refuses a quick burst');
      assert.equal(rejection.json<{ retryAfter: number }>().retryAfter, 1, 'under a second, rounded up');
      assert.equal(rejection.headers['retry-after'], '1');
      assert.equal(rejection.headers['x-ratelimit-remaining'], '0');
      let status = 429;
      for (let i = 0; i < 100 && status === 429; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        status = (await get(`/short/${strategy}/x`)).status;
      }
      assert.equal(status, 200, 'allowed again once the window has moved on');
      assertRedisOnly();
    });

    test(`${strategy}: retryAfter, Retry-After and X-RateLimit-Reset follow the script's arithmetic on Redis's clock`, async () => {
      if (strategy === 'fixed-window') {
        // Three requests must fall in one aligned minute: start well after a boundary.
        const into = (await redisNow()) % MINUTE;
        if (into > MINUTE - 5000) await new Promise((resolve) => setTimeout(resolve, MINUTE - into + 100));
      }
      const t0 = await redisNow();
      const responses = [await get(`/minute/${strategy}/x`), await get(`/minute/${strategy}/x`), await get(`/minute/${strategy}/x`)];
      const t1 = await redisNow();
      assert.deepEqual(responses.map((r) => r.status), [200, 200, 429]);
      const third = responses[2] as Awaited<ReturnType<typeof get>>;
      const expected = expectedThird(strategy, t0, t1, MINUTE);
      const reset = Number(third.headers['x-ratelimit-reset']);
      const retryAfter = third.json<{ retryAfter: number }>().retryAfter;
      const within = (value: number, [lo, hi]: [number, number]): boolean => value >= seconds(lo) && value <= seconds(hi);
      assert.ok(within(reset, expected.resetAt), `X-RateLimit-Reset ${reset} in [${seconds(expected.resetAt[0])}, ${seconds(expected.resetAt[1])}]`);
      assert.ok(within(retryAfter, expected.retryAfterMs), `retryAfter ${retryAfter} in [${seconds(expected.retryAfterMs[0])}, ${seconds(expected.retryAfterMs[1])}]`);
      assert.equal(third.headers['retry-after'], String(retryAfter));
      assertRedisOnly();
    });
  }
});
