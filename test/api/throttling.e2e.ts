import { randomUUID } from 'node:crypto';
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startRedisServer, type ClientResponse, type RedisServer } from '@gateway/testing';
import { ADMIN, ADMIN_ENV, caller, eventually, login } from './auth-fixtures';
import { startControlPlaneProcess, type ControlPlaneProcess } from './control-plane-process';

const REDIS_URL = process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';

/** Low limits (the variables operators use), long windows so nothing resets mid-test. */
const LOW_LIMITS: NodeJS.ProcessEnv = {
  API_RATE_LIMIT_GENERAL_MAX: '12',
  API_RATE_LIMIT_GENERAL_WINDOW_SECONDS: '300',
  API_RATE_LIMIT_ADMIN_MAX: '4',
  API_RATE_LIMIT_ADMIN_WINDOW_SECONDS: '300',
  API_RATE_LIMIT_CREDENTIALS_MAX: '3',
  API_RATE_LIMIT_CREDENTIALS_WINDOW_SECONDS: '900',
};

function assertRateLimited(res: ClientResponse, limit: number, tier: string): void {
  assert.equal(res.status, 429, res.text);
  const json = res.json<{ success: boolean; code: string; error: string; details: { tier: string; retryAfter: number } }>();
  assert.equal(json.success, false);
  assert.equal(json.code, 'RATE_LIMITED');
  assert.equal(json.details.tier, tier);
  const retryAfter = Number(res.headers['retry-after']);
  assert.ok(Number.isInteger(retryAfter) && retryAfter > 0, `Retry-After ${String(res.headers['retry-after'])}`);
  assert.equal(json.details.retryAfter, retryAfter);
  assert.equal(res.headers['x-ratelimit-limit'], String(limit));
  assert.equal(res.headers['x-ratelimit-remaining'], '0');
  const reset = Number(res.headers['x-ratelimit-reset']);
  const now = Date.now() / 1000;
  assert.ok(reset > now && reset <= now + 901, `X-RateLimit-Reset ${reset} is epoch seconds`);
}

describe('API limits (decision 21, in memory)', () => {
  const running: ControlPlaneProcess[] = [];
  after(async () => {
    await Promise.all(running.map((cp) => cp.stop()));
  });
  const startLimited = async (env: NodeJS.ProcessEnv = {}) => {
    const cp = await startControlPlaneProcess({ env: { ...ADMIN_ENV, ...LOW_LIMITS, ...env } });
    running.push(cp);
    return { cp, call: caller(cp) };
  };

  test('credentials tier: login, register and the SAML POSTs share 3 per window per client; session, logout and SAML metadata stay in the general tier', async () => {
    const { call } = await startLimited();
    const token = await login(call, ADMIN);
    const first = await call('POST', '/api/auth/login', { body: { email: ADMIN.email, password: 'wrong password!!' } });
    assert.equal(first.status, 401);
    assert.equal(first.headers['x-ratelimit-limit'], '3');
    assert.equal(first.headers['x-ratelimit-remaining'], '1');
    assert.equal((await call('POST', '/api/auth/register', { body: {} })).status, 501);
    assertRateLimited(await call('POST', '/api/auth/login', { body: ADMIN }), 3, 'credentials');
    assertRateLimited(await call('POST', '/api/auth/register', { body: {} }), 3, 'credentials');
    assertRateLimited(await call('POST', '/api/auth/saml/callback', { body: {} }), 3, 'credentials');
    // Every POST under /api/auth/saml/ is a credential call (issue 14), the code exchange too.
    assertRateLimited(await call('POST', '/api/auth/saml/initiate', { body: { returnUrl: '/admin/' } }), 3, 'credentials');
    assertRateLimited(await call('POST', '/api/auth/saml/exchange', { body: { code: 'x' } }), 3, 'credentials');
    // The SP metadata is public and identity providers fetch it: the general tier only.
    const metadata = await call('GET', '/api/auth/saml/metadata');
    assert.notEqual(metadata.status, 429, metadata.text);
    assert.equal(metadata.headers['x-ratelimit-limit'], '12');

    const session = await call('GET', '/api/auth/session', { token });
    assert.equal(session.status, 200);
    assert.equal(session.headers['x-ratelimit-limit'], '12');
    assert.equal((await call('POST', '/api/auth/logout', { token })).status, 200);
  });

  test('admin tier: 4 per window on admin resources, counted before authentication; then the general tier', async () => {
    const { call } = await startLimited();
    const token = await login(call, ADMIN);
    for (let i = 0; i < 4; i++) {
      const res = await call('GET', '/api/users', { token });
      assert.equal(res.status, 200);
      assert.equal(res.headers['x-ratelimit-limit'], '4');
      assert.equal(res.headers['x-ratelimit-remaining'], String(3 - i));
      assert.ok(Number(res.headers['x-ratelimit-reset']) > Date.now() / 1000);
    }
    assertRateLimited(await call('GET', '/api/users', { token }), 4, 'admin');
    // Anonymous callers of an admin resource are limited too (not an endless stream of 401s).
    assertRateLimited(await call('GET', '/api/logs'), 4, 'admin');
    assertRateLimited(await call('GET', '/api/routes', { token }), 4, 'admin');

    // The general tier still has room: 1 login + 7 admin calls so far.
    let served = 0;
    let res = await call('GET', '/api/auth/session', { token });
    while (res.status === 200 && served < 20) {
      served += 1;
      res = await call('GET', '/api/auth/session', { token });
    }
    assert.equal(served, 12 - 8);
    assertRateLimited(res, 12, 'general');
  });

  test('paths outside /api are not limited', async () => {
    const { call } = await startLimited({ API_RATE_LIMIT_GENERAL_MAX: '1' });
    for (let i = 0; i < 5; i++) assert.equal((await call('GET', '/health')).status, 200);
    assert.equal((await call('GET', '/api/auth/session')).status, 401);
    assertRateLimited(await call('GET', '/api/auth/session'), 1, 'general');
  });

  test('a bad limit variable stops the start and names the variable', async () => {
    await assert.rejects(startControlPlaneProcess({ env: { ...ADMIN_ENV, API_RATE_LIMIT_ADMIN_MAX: 'lots' } }), /API_RATE_LIMIT_ADMIN_MAX/);
  });
});

describe('API limits through a trusted load balancer (TRUSTED_PROXIES)', () => {
  const running: ControlPlaneProcess[] = [];
  after(async () => {
    await Promise.all(running.map((cp) => cp.stop()));
  });
  const wrongLogin = (call: ReturnType<typeof caller>, forwardedFor: string) =>
    call('POST', '/api/auth/login', { body: { email: ADMIN.email, password: 'wrong password!!' }, headers: { 'x-forwarded-for': forwardedFor } });

  test('admins behind one trusted load balancer each get their own login budget, named by X-Forwarded-For', async () => {
    // The test's own socket (127.0.0.1) is the load balancer.
    const cp = await startControlPlaneProcess({ env: { ...ADMIN_ENV, ...LOW_LIMITS, TRUSTED_PROXIES: '10.0.0.0/8, 127.0.0.1' } });
    running.push(cp);
    const call = caller(cp);
    for (let i = 0; i < 3; i++) assert.equal((await wrongLogin(call, '203.0.113.1')).status, 401);
    assertRateLimited(await wrongLogin(call, '203.0.113.1'), 3, 'credentials');
    // Entries the client wrote itself (left of the one the balancer appended) are not believed.
    assertRateLimited(await wrongLogin(call, '198.51.100.77, 203.0.113.1'), 3, 'credentials');
    // Another admin behind the same balancer still has the whole budget.
    const other = await wrongLogin(call, '203.0.113.2');
    assert.equal(other.status, 401);
    assert.equal(other.headers['x-ratelimit-remaining'], '2');
    // Trusted hops to the right of the client (10.0.0.5: a second, inner balancer) are skipped.
    assert.equal((await wrongLogin(call, '203.0.113.2, 10.0.0.5')).headers['x-ratelimit-remaining'], '1');
  });

  test('a spoofed X-Forwarded-For from an untrusted peer changes nothing: one budget per socket address', async () => {
    // 127.0.0.1 is not among the trusted proxies here.
    const cp = await startControlPlaneProcess({ env: { ...ADMIN_ENV, ...LOW_LIMITS, TRUSTED_PROXIES: '10.0.0.0/8' } });
    running.push(cp);
    const call = caller(cp);
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await wrongLogin(call, `203.0.113.${10 + i}`);
      assert.equal(res.status, 401);
      remaining.push(String(res.headers['x-ratelimit-remaining']));
    }
    assert.deepEqual(remaining, ['2', '1', '0']);
    assertRateLimited(await wrongLogin(call, '203.0.113.99'), 3, 'credentials');
    assertRateLimited(await call('POST', '/api/auth/login', { body: ADMIN }), 3, 'credentials');
  });

  test('a bad TRUSTED_PROXIES entry stops the start and names the variable', async () => {
    await assert.rejects(startControlPlaneProcess({ env: { ...ADMIN_ENV, TRUSTED_PROXIES: '10.0.0.0/8, not-an-ip' } }), /TRUSTED_PROXIES.*not-an-ip/);
  });
});

describe('API limits on Redis: one limit across two control planes', () => {
  const running: ControlPlaneProcess[] = [];
  after(async () => {
    await Promise.all(running.map((cp) => cp.stop()));
  });

  test('the credentials tier holds across two instances sharing one Redis', async () => {
    const prefix = `test-throttle-${randomUUID()}:`;
    const env = { ...ADMIN_ENV, ...LOW_LIMITS, REDIS_URL, REDIS_CHANNEL_PREFIX: prefix };
    const [a, b] = await Promise.all([startControlPlaneProcess({ env }), startControlPlaneProcess({ env })]);
    running.push(a, b);
    const calls = [caller(a), caller(b)];
    const attempt = (i: number) => calls[i % 2]!('POST', '/api/auth/login', { body: { email: ADMIN.email, password: 'wrong password!!' } });
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await attempt(i);
      assert.equal(res.status, 401);
      remaining.push(String(res.headers['x-ratelimit-remaining']));
    }
    assert.deepEqual(remaining, ['2', '1', '0']);
    assertRateLimited(await attempt(3), 3, 'credentials');
    assertRateLimited(await attempt(4), 3, 'credentials');
  });
});

describe('API limits when Redis is away', () => {
  let redis: RedisServer | undefined;
  after(async () => {
    await redis?.stop();
  });

  test('the limits are counted in memory: the 6th login attempt in the window is 429, and Redis counts again once it is back', async () => {
    // A private redis-server, stopped before the control plane starts: REDIS_URL names a real
    // Redis that is down, not a port nothing ever listened on.
    redis = await startRedisServer();
    await redis.kill();
    // Decision 21's default credentials tier: 5 per 15 minutes.
    const cp = await startControlPlaneProcess({
      env: { ...ADMIN_ENV, REDIS_URL: redis.url, REDIS_CHANNEL_PREFIX: `test-throttle-${randomUUID()}:`, API_RATE_LIMIT_CREDENTIALS_MAX: '5', API_RATE_LIMIT_CREDENTIALS_WINDOW_SECONDS: '900', LOG_LEVEL: 'info' },
    });
    try {
      const call = caller(cp);
      const attempt = () => call('POST', '/api/auth/login', { body: { email: ADMIN.email, password: 'wrong password!!' } });
      for (let i = 0; i < 5; i++) {
        const res = await attempt();
        assert.equal(res.status, 401, res.text);
        assert.equal(res.headers['x-ratelimit-remaining'], String(4 - i));
      }
      assertRateLimited(await attempt(), 5, 'credentials');
      // Even the right password: the budget is spent.
      assertRateLimited(await call('POST', '/api/auth/login', { body: ADMIN }), 5, 'credentials');
      assert.ok(cp.output.some((line) => line.includes('counted in memory')), cp.output.join('\n'));

      await redis.restart();
      // The storage logs the switch back once a hit has been counted in Redis.
      await eventually(async () => (await call('GET', '/api/auth/session')).status === 401 && cp.output.some((line) => line.includes('counted in Redis again')), `the throttler to count in Redis again: ${cp.output.join('\n')}`, 15_000);
    } finally {
      await cp.stop();
    }
  });
});
