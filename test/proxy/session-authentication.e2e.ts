import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes, scryptSync } from 'node:crypto';
import { request, startGatewayProcess, startUpstream, type GatewayProcess, type LoopbackUpstream } from '@gateway/testing';

interface Echo {
  headers: Record<string, string>;
}

/**
 * A real loopback fake of the external session service, speaking the contract of
 * docs/edge-policies.md: GET /sessions/validate with the bearer token.
 */
class FakeSessionService {
  readonly calls = new Map<string, number>();
  readonly tenants: Array<string | undefined> = [];
  down = false;
  private readonly held: http.ServerResponse[] = [];
  private server = http.createServer((req, res) => this.handle(req, res));
  url = '';

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/auth`;
  }

  callsFor(token: string): number {
    return this.calls.get(token) ?? 0;
  }

  close(): Promise<void> {
    for (const res of this.held) res.destroy();
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    if (this.down) {
      req.socket.destroy();
      return;
    }
    if (req.method !== 'GET' || req.url !== '/auth/sessions/validate') {
      res.writeHead(404).end();
      return;
    }
    const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    this.calls.set(token, this.callsFor(token) + 1);
    this.tenants.push(req.headers['x-tenant-id'] as string | undefined);
    const json = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (token === 'slow') {
      this.held.push(res);
      return;
    }
    if (token === 'boom') return json(500, { error: 'internal' });
    if (token === 'bad') return json(401, { valid: false });
    if (token === 'invalid-200') return json(200, { valid: false });
    const lifetime = token.startsWith('short') ? 1500 : 3_600_000;
    json(200, { valid: true, user: { id: `u-${token}`, email: `${token}@example.test`, role: 'user' }, expiresAt: new Date(Date.now() + lifetime).toISOString() });
  }
}

function basicHash(password: string): string {
  const salt = randomBytes(16);
  return `scrypt$1024$8$1$${salt.toString('base64')}$${scryptSync(password, salt, 32, { N: 1024, r: 8, p: 1 }).toString('base64')}`;
}

async function pollUntil(check: () => Promise<boolean>, what: string, limitMs = 10_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`${what} did not happen within ${limitMs} ms`);
}

describe('gateway authentication through the external session service', () => {
  let upstream: LoopbackUpstream;
  let sessions: FakeSessionService;
  let gateway: GatewayProcess;
  let shortTtl: GatewayProcess;

  const config = (cacheTTL: number) => `
version: "1.0.0"
proxy: { host: 127.0.0.1, port: 8080 }
authentication:
  enabled: true
  provider: acme
  acme:
    apiUrl: "${sessions.url}"
    tenantId: tenant-1
    sessionValidation: { enabled: true, cacheTTL: ${cacheTTL} }
    fallbackAuth: { enabled: true, methods: [basic, apiKey] }
upstreams:
  - { name: main, url: "${upstream.origin}" }
routes:
  - id: sso
    path: /s/*
    upstream: main
    auth: { required: true, provider: acme, basic: { users: { carol: "${basicHash('carol-pass')}" } } }
  - id: anon
    path: /anon/*
    upstream: main
    auth: { required: true, allowAnonymous: true }
  - id: notrequired
    path: /free/*
    upstream: main
    auth: { required: false }
  - id: otherprovider
    path: /other/*
    upstream: main
    auth: { required: true, provider: somebody-else }
`;

  before(async () => {
    upstream = await startUpstream();
    sessions = new FakeSessionService();
    await sessions.start();
    // The apiKey fallback needs the server key; `shortTtl` runs without one (its last test).
    const env = { API_KEY_SECRET: 'session-e2e-api-key-secret-0123456789abc' };
    [gateway, shortTtl] = await Promise.all([startGatewayProcess({ config: config(300), env }), startGatewayProcess({ config: config(1), env: { API_KEY_SECRET: '' } })]);
  });

  after(async () => {
    await Promise.all([gateway?.stop(), shortTtl?.stop()]);
    await sessions?.close();
    await upstream?.close();
  });

  const get = (gw: GatewayProcess, path: string, headers: Record<string, string> = {}) => request(`${gw.url}${path}`, { headers });
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  test('a valid session passes with its identity upstream (client copies replaced) and is then served from the cache', async () => {
    const res = await get(gateway, '/s/a', { ...bearer('alpha'), 'x-gateway-user-id': 'spoofed', 'x-gateway-user-role': 'admin' });
    assert.equal(res.status, 200);
    const seen = res.json<Echo>().headers;
    assert.equal(seen['x-gateway-auth'], 'session');
    assert.equal(seen['x-gateway-user-id'], 'u-alpha');
    assert.equal(seen['x-gateway-user-email'], 'alpha@example.test');
    assert.equal(seen['x-gateway-user-role'], 'user');
    assert.ok(sessions.tenants.includes('tenant-1'));
    for (let i = 0; i < 3; i += 1) assert.equal((await get(gateway, '/s/a', bearer('alpha'))).status, 200);
    assert.equal(sessions.callsFor('alpha'), 1);
  });

  test('concurrent requests with one new token ask the service once', async () => {
    const all = await Promise.all(Array.from({ length: 20 }, () => get(gateway, '/s/a', bearer('burst'))));
    assert.ok(all.every((r) => r.status === 200));
    assert.equal(sessions.callsFor('burst'), 1);
  });

  test('an invalid session is 401 with every accepted challenge', async () => {
    for (const token of ['bad', 'invalid-200']) {
      const res = await get(gateway, '/s/a', bearer(token));
      assert.equal(res.status, 401, token);
      assert.equal(res.headers['www-authenticate'], 'Bearer realm="gateway", error="invalid_token", Basic realm="gateway", charset="UTF-8", ApiKey realm="gateway"');
    }
    const none = await get(gateway, '/s/a');
    assert.equal(none.status, 401);
    assert.equal(none.headers['www-authenticate'], 'Bearer realm="gateway", Basic realm="gateway", charset="UTF-8", ApiKey realm="gateway"');
  });

  test('the service failing or too slow is a 503, not a 401', async () => {
    for (const token of ['boom', 'slow']) {
      const res = await get(gateway, '/s/a', bearer(token));
      assert.equal(res.status, 503, token);
      assert.equal(res.json().message, 'Authentication service unavailable');
      assert.equal(res.headers['www-authenticate'], undefined);
    }
  });

  test('the service down: cached sessions keep working, new tokens get 503', async () => {
    assert.equal((await get(gateway, '/s/a', bearer('cached-before-outage'))).status, 200);
    sessions.down = true;
    try {
      assert.equal((await get(gateway, '/s/a', bearer('cached-before-outage'))).status, 200);
      assert.equal((await get(gateway, '/s/a', bearer('new-during-outage'))).status, 503);
    } finally {
      sessions.down = false;
    }
    assert.equal((await get(gateway, '/s/a', bearer('new-during-outage'))).status, 200);
  });

  test('a cached session is never used past its expiresAt', async () => {
    assert.equal((await get(gateway, '/s/a', bearer('short-1'))).status, 200);
    assert.equal((await get(gateway, '/s/a', bearer('short-1'))).status, 200);
    assert.equal(sessions.callsFor('short-1'), 1);
    // cacheTTL is 300 s here: only the 1.5 s expiresAt can make the gateway ask again.
    await pollUntil(async () => (await get(gateway, '/s/a', bearer('short-1'))).status === 200 && sessions.callsFor('short-1') > 1, 'revalidation after expiresAt');
  });

  test('sessions are cached for cacheTTL seconds only', async () => {
    assert.equal((await get(shortTtl, '/s/a', bearer('ttl'))).status, 200);
    await get(shortTtl, '/s/a', bearer('ttl'));
    await pollUntil(async () => (await get(shortTtl, '/s/a', bearer('ttl'))).status === 200 && sessions.callsFor('ttl') > 1, 'revalidation after cacheTTL');
  });

  test('fallbackAuth apiKey without API_KEY_SECRET: sessions and basic still pass, a presented key is 503 AUTH_NOT_CONFIGURED, no ApiKey challenge', async () => {
    assert.equal((await get(shortTtl, '/s/a', bearer('no-key-secret'))).status, 200);
    assert.equal((await get(shortTtl, '/s/a', { authorization: `Basic ${Buffer.from('carol:carol-pass').toString('base64')}` })).status, 200);
    const keys: Array<Record<string, string>> = [{ 'x-api-key': 'gw_any' }, { authorization: 'ApiKey gw_any' }];
    for (const headers of keys) {
      const res = await get(shortTtl, '/s/a', headers);
      assert.equal(res.status, 503);
      assert.equal(res.headers['www-authenticate'], undefined);
    }
    assert.equal((await get(shortTtl, '/s/a')).headers['www-authenticate'], 'Bearer realm="gateway", Basic realm="gateway", charset="UTF-8"');
    const warning = await shortTtl.waitForOutput('no API key can be verified');
    assert.match(warning, /API_KEY_SECRET/);
  });

  test('fallbackAuth: basic credentials of the route pass; an unknown API key is refused', async () => {
    const res = await get(gateway, '/s/a', { authorization: `Basic ${Buffer.from('carol:carol-pass').toString('base64')}` });
    assert.equal(res.status, 200);
    assert.equal(res.json<Echo>().headers['x-gateway-auth'], 'basic');
    assert.equal(res.json<Echo>().headers['x-gateway-user-id'], 'carol');
    assert.equal((await get(gateway, '/s/a', { 'x-api-key': 'nope' })).status, 401);
  });

  test('allowAnonymous passes requests without a token; required: false checks nothing', async () => {
    const anon = await get(gateway, '/anon/a', { 'x-gateway-user-id': 'spoofed' });
    assert.equal(anon.status, 200);
    assert.equal(anon.json<Echo>().headers['x-gateway-auth'], 'anonymous');
    assert.equal(anon.json<Echo>().headers['x-gateway-user-id'], undefined);
    assert.equal((await get(gateway, '/anon/a', bearer('bad'))).status, 401);
    const calls = sessions.callsFor('whatever');
    assert.equal((await get(gateway, '/free/a', bearer('whatever'))).status, 200);
    assert.equal(sessions.callsFor('whatever'), calls);
  });

  test('a route naming another provider fails closed with 503', async () => {
    assert.equal((await get(gateway, '/other/a', bearer('alpha'))).status, 503);
  });
});
