import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes, scryptSync } from 'node:crypto';
import { request, startGatewayProcess, startUpstream, type GatewayProcess, type LoopbackUpstream } from '@gateway/testing';

/**
 * A loopback stand-in for the external session service (contract in docs/edge-policies.md) that
 * counts the calls per token: `good-*` tokens are valid, `slow-bad-*` are refused after 300 ms (so
 * concurrent checks overlap), anything else is refused at once.
 */
class CountingSessionService {
  private readonly calls = new Map<string, number>();
  private readonly server = http.createServer((req, res) => this.handle(req, res));
  url = '';

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  callsFor(token: string): number {
    return this.calls.get(token) ?? 0;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    this.calls.set(token, this.callsFor(token) + 1);
    const answer = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (token.startsWith('good-')) answer(200, { valid: true, user: { id: `u-${token}` } });
    else if (token.startsWith('slow-bad-')) setTimeout(() => answer(401, { valid: false }), 300);
    else answer(401, { valid: false });
  }
}

/** The stored form of a basic password; `N` sets the scrypt cost (the test of the cap needs a slow one). */
function basicHash(password: string, N = 1024): string {
  const salt = randomBytes(16);
  const key = scryptSync(password, salt, 32, { N, r: 8, p: 1, maxmem: 256 * N * 8 + 1024 * 1024 });
  return `scrypt$${N}$8$1$${salt.toString('base64')}$${key.toString('base64')}`;
}

const basicHeader = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** The data plane trusts 127.0.0.1 as a proxy, so X-Forwarded-For names the client address. */
const from = (address: string, authorization: string): Record<string, string> => ({ 'x-forwarded-for': address, authorization });

const config = (sessionUrl: string, upstreamOrigin: string): string => `
version: "1.0.0"
proxy: { host: 127.0.0.1, port: 8080, trustedProxies: ["127.0.0.1"] }
authentication:
  enabled: true
  provider: acme
  acme:
    apiUrl: "${sessionUrl}"
upstreams:
  - { name: main, url: "${upstreamOrigin}" }
routes:
  - { id: sso, path: /s/*, upstream: main, auth: { required: true, provider: acme } }
  - id: basic
    path: /basic/*
    upstream: main
    auth: { enabled: true, type: basic, basic: { users: { alice: "${basicHash('correct horse')}" } } }
  - id: slowbasic
    path: /slow-basic/*
    upstream: main
    auth: { enabled: true, type: basic, basic: { users: { bob: "${basicHash('battery staple', 1 << 15)}" } } }
`;

describe('refusals cost little: failed-credential limit, negative cache, single-flight, scrypt cap, sampled logs', () => {
  let upstream: LoopbackUpstream;
  let sessions: CountingSessionService;
  let gateway: GatewayProcess;

  before(async () => {
    upstream = await startUpstream();
    sessions = new CountingSessionService();
    await sessions.start();
    gateway = await startGatewayProcess({ config: config(sessions.url, upstream.origin) });
  });

  after(async () => {
    await gateway?.stop();
    await sessions?.close();
    await upstream?.close();
  });

  const get = (path: string, headers: Record<string, string> = {}) => request(`${gateway.url}${path}`, { headers });

  test('over the failed-credential limit an address gets 429 before the session service is asked; a session verified earlier and other addresses still pass', async () => {
    const blocked = '198.51.100.1';
    assert.equal((await get('/s/a', from(blocked, 'Bearer good-before'))).status, 200);
    for (let i = 1; i <= 10; i += 1) {
      assert.equal((await get('/s/a', from(blocked, `Bearer bad-${i}`))).status, 401, `bad-${i}`);
      assert.equal(sessions.callsFor(`bad-${i}`), 1);
    }
    const over = await get('/s/a', from(blocked, 'Bearer bad-11'));
    assert.equal(over.status, 429);
    assert.equal(over.json().message, 'Too many failed credentials from this address');
    assert.ok(Number(over.headers['retry-after']) >= 1 && Number(over.headers['retry-after']) <= 60);
    assert.equal(sessions.callsFor('bad-11'), 0, 'refused before the check');
    assert.equal((await get('/s/a', from(blocked, 'Bearer good-unseen'))).status, 429, 'an unchecked credential waits too');
    assert.equal(sessions.callsFor('good-unseen'), 0);
    assert.equal((await get('/s/a', from(blocked, 'Bearer good-before'))).status, 200, 'a session verified before costs nothing and passes');
    assert.equal((await get('/s/a', from('198.51.100.2', 'Bearer good-unseen'))).status, 200, 'another address is not limited');
  });

  test('basic: ten wrong passwords, then the right one is 429 from that address and 200 from another', async () => {
    const blocked = '198.51.100.3';
    for (let i = 1; i <= 10; i += 1) assert.equal((await get('/basic/a', from(blocked, basicHeader('alice', `wrong ${i}`)))).status, 401);
    const over = await get('/basic/a', from(blocked, basicHeader('alice', 'correct horse')));
    assert.equal(over.status, 429);
    assert.equal(over.headers['www-authenticate'], undefined);
    const elsewhere = await get('/basic/a', from('198.51.100.4', basicHeader('alice', 'correct horse')));
    assert.equal(elsewhere.status, 200);
    assert.equal(elsewhere.json<{ headers: Record<string, string> }>().headers['x-gateway-user-id'], 'alice');
    // A right password does not use up the address's allowance.
    for (let i = 0; i < 12; i += 1) assert.equal((await get('/basic/a', from('198.51.100.4', basicHeader('alice', 'correct horse')))).status, 200);
    const metrics = (await get('/metrics')).text;
    assert.match(metrics, /gateway_auth_failures_total\{route="basic",scheme="basic",reason="too_many_failures"\} 1\b/);
  });

  test('a credential just refused is answered from memory: the session service is asked once', async () => {
    for (let i = 0; i < 3; i += 1) assert.equal((await get('/s/a', from('198.51.100.5', 'Bearer bad-repeated'))).status, 401);
    assert.equal(sessions.callsFor('bad-repeated'), 1);
  });

  test('concurrent requests with one bad session token cause one call to the service', async () => {
    const all = await Promise.all(Array.from({ length: 8 }, () => get('/s/a', from('198.51.100.6', 'Bearer slow-bad-1'))));
    assert.deepEqual(all.map((r) => r.status), Array.from({ length: 8 }, () => 401));
    assert.equal(sessions.callsFor('slow-bad-1'), 1);
  });

  test('scrypt work is capped: a burst of distinct wrong passwords gets 503 with Retry-After beyond the queue, not a derivation each', async () => {
    // 50 addresses, one wrong password each: the limit per address is not what stops them.
    const all = await Promise.all(Array.from({ length: 50 }, (_, i) => get('/slow-basic/a', from(`203.0.113.${i + 1}`, basicHeader('bob', `guess ${i}`)))));
    const overloaded = all.filter((r) => r.status === 503);
    assert.equal(all.filter((r) => r.status === 401).length + overloaded.length, 50);
    // One derivation at a time and 8 waiting: 41 of 50 cannot be queued when they arrive together; a
    // slot freed while the burst is still arriving admits a few more, hence the margin.
    assert.ok(overloaded.length >= 20, `${overloaded.length} answered 503`);
    for (const res of overloaded) {
      assert.equal(res.json().message, 'Too many credential checks in progress');
      assert.equal(res.headers['retry-after'], '1');
    }
    assert.equal((await get('/slow-basic/a', from('203.0.113.200', basicHeader('bob', 'battery staple')))).status, 200, 'checks go on once the burst is over');
  });
});

describe('refusals are logged by sample and counted in full', () => {
  let upstream: LoopbackUpstream;
  let gateway: GatewayProcess;

  before(async () => {
    upstream = await startUpstream();
    gateway = await startGatewayProcess({
      config: `
version: "1.0.0"
proxy: { host: 127.0.0.1, port: 8080 }
upstreams:
  - { name: main, url: "${upstream.origin}" }
routes:
  - { id: basic, path: /basic/*, upstream: main, auth: { enabled: true, type: basic, basic: { users: { alice: "${basicHash('correct horse')}" } } } }
`,
    });
  });

  after(async () => {
    await gateway?.stop();
    await upstream?.close();
  });

  test('30 refusals: 10 lines, then one summary line of the other 20; the metric counts 30', async () => {
    // No credential at all: refused without any check, so the failed-credential limit is not involved.
    for (let i = 0; i < 30; i += 1) assert.equal((await request(`${gateway.url}/basic/a`)).status, 401);
    const summary = JSON.parse(await gateway.waitForOutput('more authentication refusals than are logged', 15_000)) as { notLogged: number; byReason: Record<string, number> };
    assert.deepEqual(summary.byReason, { missing: 20 });
    assert.equal(summary.notLogged, 20);
    assert.equal(gateway.output.filter((line) => line.includes('"authentication refused"')).length, 10);
    const metrics = (await request(`${gateway.url}/metrics`)).text;
    assert.match(metrics, /gateway_auth_failures_total\{route="basic",scheme="none",reason="missing"\} 30\b/);
  });
});
