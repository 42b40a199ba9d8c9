import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { caller, managementToken, type Call } from './auth-fixtures';
import { apiKeysApiSuite, JWT_SECRET, SQLITE } from './api-keys-suite';
import { startControlPlaneProcess, type ControlPlaneProcess } from './control-plane-process';

apiKeysApiSuite(SQLITE);

describe('a control plane without API_KEY_SECRET (control-plane role)', () => {
  let cp: ControlPlaneProcess;
  let call: Call;
  const admin = managementToken(JWT_SECRET, 'admin');
  before(async () => {
    cp = await startControlPlaneProcess({ env: { JWT_SECRET } });
    call = caller(cp);
  });
  after(async () => {
    await cp?.stop();
  });

  test('starts, warns naming API_KEY_SECRET, and refuses to create keys with 503 API_KEYS_NOT_CONFIGURED; listing still works', async () => {
    assert.ok(cp.output.some((line) => line.includes('API_KEY_SECRET is not set')), cp.output.join('\n'));
    const res = await call('POST', '/api/api-keys', { token: admin, body: { name: 'no-secret' } });
    assert.equal(res.status, 503);
    assert.equal(res.json()['code'], 'API_KEYS_NOT_CONFIGURED');
    assert.match(String(res.json()['error']), /API_KEY_SECRET/);
    const list = await call('GET', '/api/api-keys', { token: admin });
    assert.equal(list.status, 200);
    assert.deepEqual(list.json()['data'], []);
  });
});
