import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { apiKeySecretFingerprint } from '@gateway/events';
import { makeTempDir, request, startUpstream, type LoopbackUpstream } from '@gateway/testing';
import { start } from '../../start';
import type { RunningDataPlane } from '../../data-plane-options';
import { HmacApiKeyVerifier } from './api-key-verifier';

const SERVER_KEY = 'server-key-shared-with-the-control-plane';
const digest = (key: string): string => createHmac('sha256', SERVER_KEY).update(key).digest('hex');

test('verify: HMAC-SHA256 digests under the server key; unknown, empty and oversized keys are null', async () => {
  const verifier = new HmacApiKeyVerifier(SERVER_KEY);
  verifier.replace([
    { keyId: 'k1', digest: digest('gk_live_one'), userId: 'u1' },
    { keyId: 'k2', digest: digest('gk_live_two') },
  ]);
  assert.equal(verifier.digestOf('gk_live_one'), digest('gk_live_one'));
  assert.deepEqual(await verifier.verify('gk_live_one'), { keyId: 'k1', userId: 'u1' });
  assert.deepEqual(await verifier.verify('gk_live_two'), { keyId: 'k2' });
  assert.equal(await verifier.verify('gk_live_three'), null);
  assert.equal(await verifier.verify(''), null);
  assert.equal(await verifier.verify('x'.repeat(600)), null);
  // A different server key never matches.
  const other = new HmacApiKeyVerifier('another-server-key');
  other.replace([{ keyId: 'k1', digest: digest('gk_live_one') }]);
  assert.equal(await other.verify('gk_live_one'), null);
});

test('replace swaps the whole set (revocation) and refuses a malformed digest with the key id', async () => {
  const verifier = new HmacApiKeyVerifier(SERVER_KEY);
  verifier.replace([{ keyId: 'k1', digest: digest('a') }]);
  verifier.replace([{ keyId: 'k2', digest: digest('b') }]);
  assert.equal(await verifier.verify('a'), null);
  assert.equal(verifier.size, 1);
  assert.throws(() => verifier.replace([{ keyId: 'bad', digest: 'abc' }]), /api key bad: digest must be 64 hex/);
  assert.equal(await verifier.verify('b').then((i) => i?.keyId), 'k2', 'a failed replace keeps the previous set');
});

test('without a server key the default verifier knows no key and says why (routes then answer 503, not 401)', async () => {
  const verifier = new HmacApiKeyVerifier();
  assert.equal(await verifier.verify('anything'), null);
  assert.match(String(verifier.unavailable()), /API_KEY_SECRET/);
  assert.equal(new HmacApiKeyVerifier(SERVER_KEY).unavailable(), undefined);
});

test('a key is refused from its expiresAt on, without a new replace; a bad expiresAt is refused by replace', async () => {
  const verifier = new HmacApiKeyVerifier(SERVER_KEY);
  const soon = new Date(Date.now() + 1000).toISOString();
  verifier.replace([
    { keyId: 'short', digest: digest('gw_short'), expiresAt: soon },
    { keyId: 'long', digest: digest('gw_long'), expiresAt: new Date(Date.now() + 3_600_000).toISOString() },
    { keyId: 'past', digest: digest('gw_past'), expiresAt: new Date(Date.now() - 1).toISOString() },
  ]);
  assert.equal((await verifier.verify('gw_short'))?.keyId, 'short');
  assert.equal(await verifier.verify('gw_past'), null);
  await new Promise((resolve) => setTimeout(resolve, 1050));
  assert.equal(await verifier.verify('gw_short'), null);
  assert.equal((await verifier.verify('gw_long'))?.keyId, 'long');
  assert.throws(() => verifier.replace([{ keyId: 'odd', digest: digest('x'), expiresAt: 'next week' }]), /api key odd: expiresAt/);
});

test("the control plane's server-key fingerprint: a different API_KEY_SECRET makes the verifier unavailable, the same one does not", () => {
  const verifier = new HmacApiKeyVerifier(SERVER_KEY);
  verifier.replace([], apiKeySecretFingerprint(SERVER_KEY));
  assert.equal(verifier.unavailable(), undefined);
  verifier.replace([], apiKeySecretFingerprint('the control plane has another one'));
  assert.match(String(verifier.unavailable()), /API_KEY_SECRET differs/);
  verifier.replace([]);
  assert.equal(verifier.unavailable(), undefined, 'no fingerprint (a control plane without the secret): nothing to compare');
});

let upstream: LoopbackUpstream;
let plane: RunningDataPlane;
const dir = makeTempDir('api-key-');
const verifier = new HmacApiKeyVerifier(SERVER_KEY);

before(async () => {
  upstream = await startUpstream();
  const config = path.join(dir.path, 'proxy.yml');
  writeFileSync(config, `version: "1.0.0"\nroutes:\n  - { id: keyed, path: /k/*, upstream: "${upstream.origin}", auth: { enabled: true, type: apiKey } }\n`);
  plane = await start({ configPath: config, dataDir: path.join(dir.path, 'data'), host: '127.0.0.1', port: 0, logLevel: 'silent', apiKeys: verifier });
});

after(async () => {
  await plane.close();
  await upstream.close();
  dir.remove();
});

test('a route with auth.type apiKey: created, used per decision 22 (both headers), revoked', async () => {
  const url = `http://127.0.0.1:${plane.port}/k/a`;
  assert.equal((await request(url, { headers: { 'x-api-key': 'gk_new' } })).status, 401);
  verifier.replace([{ keyId: 'key-42', digest: digest('gk_new'), userId: 'owner-1' }]);
  for (const headers of [{ 'x-api-key': 'gk_new', 'x-gateway-key-id': 'spoofed' }, { authorization: 'ApiKey gk_new' }]) {
    const res = await request(url, { headers });
    assert.equal(res.status, 200);
    const seen = res.json<{ headers: Record<string, string> }>().headers;
    assert.equal(seen['x-gateway-key-id'], 'key-42');
    assert.equal(seen['x-gateway-user-id'], 'owner-1');
    assert.equal(seen['x-gateway-auth'], 'apiKey');
  }
  verifier.replace([]);
  const revoked = await request(url, { headers: { 'x-api-key': 'gk_new' } });
  assert.equal(revoked.status, 401);
  assert.equal(revoked.headers['www-authenticate'], 'ApiKey realm="gateway"');
  assert.equal(plane.apiKeys, verifier);
});
