import { test } from 'node:test';
import assert from 'node:assert/strict';
import { normalizeRoute, parseBasicHash } from '@gateway/route-model';
import { BasicCredentials, hashBasicPassword } from './basic-credentials';

test('hashBasicPassword writes the documented format, which the route model accepts', () => {
  const hash = hashBasicPassword('pw', { N: 1024 });
  assert.match(hash, /^scrypt\$1024\$8\$1\$[A-Za-z0-9+/]+={0,2}\$[A-Za-z0-9+/]+={0,2}$/);
  assert.ok(parseBasicHash(hash) !== undefined);
  assert.notEqual(hashBasicPassword('pw', { N: 1024 }), hash, 'salted');
});

test('verify: right password, wrong password, unknown user', async () => {
  const users = new BasicCredentials({ dora: hashBasicPassword('open sesame', { N: 1024 }) });
  assert.equal(await users.verify('dora', 'open sesame'), true);
  assert.equal(await users.verify('dora', 'open sesame'), true, 'remembered');
  assert.equal(await users.verify('dora', 'open sesam'), false);
  assert.equal(await users.verify('eve', 'open sesame'), false);
});

test('the route model refuses plain-text passwords and weak parameters with the field', () => {
  for (const value of ['hunter2', 'scrypt$1000$8$1$AAAAAAAAAAAAAAAAAAAAAA==$' + 'A'.repeat(44), hashBasicPassword('x', { N: 1024 }).replace('$1024$', '$512$')]) {
    const result = normalizeRoute({ path: '/a', upstream: 'http://127.0.0.1:1', auth: { enabled: true, type: 'basic', basic: { users: { u: value } } } });
    assert.equal(result.ok, false, value);
    assert.match(result.ok ? '' : (result.errors[0]?.field ?? ''), /^auth\.basic\.users/);
  }
});
