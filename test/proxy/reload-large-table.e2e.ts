import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import {
  manyRoutesConfig,
  manyRoutesRoute,
  request,
  startGatewayProcess,
  startUpstream,
  type GatewayProcess,
  type LoopbackUpstream,
  type ManyRoutesRoute,
} from '@gateway/testing';

/*
 * Issue 19: a reload of a 10,000-route proxy.yml (read in a worker thread, compiled in slices,
 * unchanged routes reused) under load loses no request, applies what changed, and leaves the
 * state of unchanged routes (rate-limit counters, cached responses) as it was.
 */

const ROUTES = 10_000;
/** Rate-limited routes allow this many requests an hour: a counter that survives is seen at once, and no token refills during a slow reload. */
const RATE_LIMIT_MAX = 3;
const RATE_LIMIT_WINDOW_MS = 3_600_000;
/** The routes the reloads change, in turn; never part of the load. */
const CHANGED_POOL = [30, 31, 32, 33];
/** r-0: prefix route with a rate limit; r-12: prefix route with a response cache. */
const RATE_LIMITED = manyRoutesRoute(0);
const CACHED = manyRoutesRoute(12);

function reloadCount(metrics: string): number {
  const match = /^gateway_config_reloads_total\{result="success"\} (\d+)$/m.exec(metrics);
  return match ? Number(match[1]) : 0;
}

function failedReloads(metrics: string): number {
  const match = /^gateway_config_reloads_total\{result="failure"\} (\d+)$/m.exec(metrics);
  return match ? Number(match[1]) : 0;
}

describe('reload of a 10,000-route table under load', { timeout: 600_000 }, () => {
  let upstream: LoopbackUpstream;
  let gateway: GatewayProcess;
  const configWith = (changed: readonly number[]) =>
    manyRoutesConfig({ count: ROUTES, upstreamOrigin: upstream.origin, changed: new Set(changed), rateLimitMax: RATE_LIMIT_MAX, rateLimitWindowMs: RATE_LIMIT_WINDOW_MS }).yaml;

  before(async () => {
    // Answers with the path it received: which route forwarded, and whether its change applied.
    upstream = await startUpstream({
      handler: (req, res) => {
        const body = JSON.stringify({ url: req.url });
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        res.end(body);
      },
    });
    gateway = await startGatewayProcess({ config: configWith([]), startTimeoutMs: 120_000 });
  });

  after(async () => {
    await gateway?.stop();
    await upstream?.close();
  });

  const metrics = async (): Promise<string> => (await request(`${gateway.url}/metrics`, { timeoutMs: 30_000 })).text;
  const upstreamPathOf = async (route: ManyRoutesRoute): Promise<{ status: number; url: string | undefined; cache: unknown }> => {
    const res = await request(`${gateway.url}${route.requestPath}`, { timeoutMs: 30_000 });
    const url = res.status === 200 ? (JSON.parse(res.text) as { url: string }).url : undefined;
    return { status: res.status, url, cache: res.headers['x-cache'] };
  };

  /** SIGHUP with a new file; resolves once the reload is counted (fails at once on a rejected one). */
  const reloadWith = async (changed: readonly number[]): Promise<void> => {
    const text = await metrics();
    const successes = reloadCount(text);
    const failures = failedReloads(text);
    gateway.writeConfig(configWith(changed));
    gateway.signal('SIGHUP');
    const deadline = Date.now() + 180_000;
    while (Date.now() < deadline) {
      const now = await metrics();
      if (failedReloads(now) > failures) assert.fail(`the reload was rejected; output:\n${gateway.output.slice(-5).join('\n')}`);
      if (reloadCount(now) > successes) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.fail('the reload was not counted within 180 s');
  };

  test('keep-alive clients see only 200s from the right route through repeated SIGHUPs', async () => {
    // Routes without a rate limit or cache, outside the changed pool: every answer is predictable.
    const loadRoutes: ManyRoutesRoute[] = [];
    for (let i = 0; i < ROUTES && loadRoutes.length < 2000; i += 7) {
      const route = manyRoutesRoute(i);
      if ((route.policies === 'none' || route.policies === 'breaker-headers') && !CHANGED_POOL.includes(i)) loadRoutes.push(route);
    }
    const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
    let ok = 0;
    const failures: string[] = [];
    let running = true;
    let next = 0;
    const client = async (): Promise<void> => {
      while (running) {
        const route = loadRoutes[(next += 1) % loadRoutes.length] as ManyRoutesRoute;
        try {
          const res = await request(`${gateway.url}${route.requestPath}`, { agent, timeoutMs: 30_000 });
          const url = res.status === 200 ? (JSON.parse(res.text) as { url?: string }).url : undefined;
          if (url === route.upstreamPath) ok += 1;
          else failures.push(`${route.requestPath}: ${res.status} ${res.text.slice(0, 200)}`);
        } catch (error) {
          failures.push(`${route.requestPath}: ${String(error)}`);
        }
      }
    };
    const clients = Array.from({ length: 8 }, client);
    try {
      for (let i = 0; i < 200 && ok < 50; i += 1) await new Promise((r) => setTimeout(r, 50));
      assert.ok(ok >= 50, `the load got going (${ok} answers, failures: ${failures.slice(0, 3).join('; ')})`);
      const reloads: Array<readonly number[]> = [[30, 31], [32], [32]];
      for (const changed of reloads) {
        const before = ok;
        await reloadWith(changed);
        // The changed routes answer with their new upstream path; the ones changed back, with the old one.
        for (const index of CHANGED_POOL) {
          const expected = manyRoutesRoute(index, new Set(changed));
          assert.deepEqual(await upstreamPathOf(expected), { status: 200, url: expected.upstreamPath, cache: undefined }, `route r-${index} after reloading with ${changed.join(',')}`);
        }
        assert.ok(ok > before, 'requests were answered while the reload ran');
      }
    } finally {
      running = false;
      await Promise.all(clients);
      agent.destroy();
    }
    assert.deepEqual(failures.slice(0, 5), [], `${failures.length} of ${ok + failures.length} requests failed`);
    assert.ok(ok > 100, `${ok} requests answered`);
  });

  test('unchanged routes keep their rate-limit counters and cached responses across a reload', async () => {
    assert.equal((await upstreamPathOf(RATE_LIMITED)).status, 200);
    assert.equal((await upstreamPathOf(RATE_LIMITED)).status, 200);
    const miss = await upstreamPathOf(CACHED);
    assert.equal(miss.url, CACHED.upstreamPath);
    assert.equal((await upstreamPathOf(CACHED)).cache, 'HIT');
    const upstreamCalls = upstream.requests.filter((r) => r.url === CACHED.upstreamPath).length;

    await reloadWith([33]);

    // The third request of the hour is the last one allowed: the counter went on from 2.
    assert.equal((await upstreamPathOf(RATE_LIMITED)).status, 200);
    assert.equal((await upstreamPathOf(RATE_LIMITED)).status, 429);
    const hit = await upstreamPathOf(CACHED);
    assert.deepEqual(hit, { status: 200, url: CACHED.upstreamPath, cache: 'HIT' });
    assert.equal(upstream.requests.filter((r) => r.url === CACHED.upstreamPath).length, upstreamCalls, 'the cached response was served, not fetched again');
    const changed = manyRoutesRoute(33, new Set([33]));
    assert.equal((await upstreamPathOf(changed)).url, changed.upstreamPath);
  });
});
