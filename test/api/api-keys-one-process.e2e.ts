import { createHmac } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { request, startGatewayProcess, startUpstream, type ClientResponse, type GatewayProcess, type LoopbackUpstream } from '@gateway/testing';
import { caller, eventually, login, type Call } from './auth-fixtures';

/*
 * The API-key lifecycle on `gateway start` (one process, both planes, SQLite, in-process bus),
 * with no API_KEY_SECRET: the gateway generates one into its data directory. The route and the
 * keys are made through the management API; traffic goes through the proxy port.
 */
const ADMIN = { email: 'keys@example.com', password: 'one-process-keys-password' };

interface Echo {
  headers: Record<string, string | undefined>;
}

describe('API keys end to end on the one-process gateway', () => {
  let upstream: LoopbackUpstream;
  let gateway: GatewayProcess;
  let call: Call;
  let token: string;

  before(async () => {
    upstream = await startUpstream();
    gateway = await startGatewayProcess({
      role: 'all',
      config: 'version: "1.0.0"\nroutes: []\n',
      // Both planes and two scrypt hashes (first admin, login's dummy) on a loaded machine.
      startTimeoutMs: 30_000,
      env: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, API_KEY_SECRET: '', JWT_SECRET: '', DATABASE_URL: '', REDIS_URL: '', API_RATE_LIMIT_ADMIN_MAX: '10000', API_RATE_LIMIT_GENERAL_MAX: '10000' },
    });
    call = caller(gateway);
    token = await login(call, ADMIN);
    const route = await call('POST', '/api/routes', { token, body: { id: 'keyed', path: '/keyed/*', upstream: upstream.origin, auth: { enabled: true, type: 'apiKey' } } });
    assert.equal(route.status, 201, route.text);
    await eventually(async () => (await proxied()).status === 401, 'the apiKey route is served (401 without a key)', 2000);
  });
  after(async () => {
    await gateway?.stop();
    await upstream?.close();
  });

  const proxied = (headers: Record<string, string> = {}): Promise<ClientResponse> => request(`${gateway.url}/keyed/orders`, { headers });
  const admin = (method: string, urlPath: string, body?: unknown): Promise<ClientResponse> => call(method, urlPath, { token, ...(body === undefined ? {} : { body }) });
  const createKey = async (body: Record<string, unknown>): Promise<{ id: string; key: string }> => {
    const res = await admin('POST', '/api/api-keys', body);
    assert.equal(res.status, 201, res.text);
    return res.json<{ data: { id: string; key: string } }>().data;
  };
  const accepted = (key: string) => async () => (await proxied({ 'x-api-key': key })).status === 200;
  const refused = (key: string) => async () => (await proxied({ 'x-api-key': key })).status === 401;

  test('the server key is generated once into the data directory (mode 0600) and keys are its HMAC-SHA256 digests', async () => {
    const file = path.join(gateway.dataDir, 'api-key-secret');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const secret = readFileSync(file, 'utf8').trim();
    assert.ok(secret.length >= 32);
    const { id, key } = await createKey({ name: 'digest-check' });
    await eventually(accepted(key), 'the new key works', 1000);
    const db = new Database(path.join(gateway.dataDir, 'gateway.sqlite'), { readonly: true });
    try {
      const row = db.prepare(`SELECT digest FROM api_keys WHERE id = ?`).get(id) as { digest: string };
      assert.equal(row.digest, createHmac('sha256', secret).update(key).digest('hex'));
    } finally {
      db.close();
    }
    assert.ok(!gateway.output.join('\n').includes(secret), 'the secret is never logged');
    await admin('DELETE', `/api/api-keys/${id}`);
  });

  test('create -> accepted with X-API-Key and Authorization: ApiKey within 1 s; upstream sees X-Gateway-Key-Id (client copies dropped); list/get never show the key; revoke -> 401 within 1 s', async () => {
    const { id, key } = await createKey({ name: 'orders-client' });
    await eventually(accepted(key), 'the key is accepted', 1000);

    const both: Array<Record<string, string>> = [{ 'x-api-key': key }, { authorization: `ApiKey ${key}` }];
    for (const headers of both) {
      const res = await proxied({ ...headers, 'x-gateway-key-id': 'spoofed', 'x-gateway-user-id': 'spoofed-admin', 'x-gateway-auth': 'jwt' });
      assert.equal(res.status, 200, res.text);
      const seen = res.json<Echo>().headers;
      assert.equal(seen['x-gateway-key-id'], id);
      assert.equal(seen['x-gateway-auth'], 'apiKey');
      assert.equal(seen['x-gateway-user-id'], undefined, 'a key is not a user: no X-Gateway-User-Id');
    }

    const list = await admin('GET', '/api/api-keys?limit=100');
    const one = await admin('GET', `/api/api-keys/${id}`);
    for (const res of [list, one]) {
      assert.equal(res.status, 200);
      assert.ok(!res.text.includes(key), 'the key is shown only once');
      assert.ok(!/"digest"/.test(res.text), 'no digest either');
    }

    const revoke = await admin('DELETE', `/api/api-keys/${id}`);
    assert.equal(revoke.status, 204);
    await eventually(refused(key), 'the revoked key is refused', 1000);
    const res = await proxied({ authorization: `ApiKey ${key}` });
    assert.equal(res.status, 401);
    assert.equal(res.headers['www-authenticate'], 'ApiKey realm="gateway"');
    assert.ok(!gateway.output.join('\n').includes(key), 'the key never reaches the log');
  });

  test('a key past its expiresAt is refused (401) without waiting for a new configuration', async () => {
    const expiresAt = Date.now() + 2500;
    const { id, key } = await createKey({ name: 'short-lived', expiresAt: new Date(expiresAt).toISOString() });
    await eventually(accepted(key), 'the key works before it expires', 1000);
    await eventually(refused(key), 'the expired key is refused', expiresAt - Date.now() + 1000);
    assert.ok(Date.now() >= expiresAt, 'refused only once expired');
    const shown = await admin('GET', `/api/api-keys/${id}`);
    assert.equal(shown.json<{ data: { status: string } }>().data.status, 'expired');
  });

  test('a wrong key, an empty one or none: 401 with the ApiKey challenge; other keys keep working', async () => {
    const { key } = await createKey({ name: 'neighbour' });
    await eventually(accepted(key), 'the key works', 1000);
    const wrong = `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`;
    const variants: Array<Record<string, string>> = [{ 'x-api-key': wrong }, { authorization: `ApiKey ${wrong}` }, { 'x-api-key': 'gw_not-a-key' }, {}];
    for (const headers of variants) {
      const res = await proxied(headers);
      assert.equal(res.status, 401, JSON.stringify(headers));
      assert.equal(res.headers['www-authenticate'], 'ApiKey realm="gateway"');
      assert.deepEqual(Object.keys(res.json()).sort(), ['correlationId', 'error', 'message']);
    }
    assert.equal((await proxied({ 'x-api-key': key })).status, 200);
  });
});
