import { test } from 'node:test';
import assert from 'node:assert/strict';
import { normalizeRoute, parseBasicHash } from '@gateway/route-model';
import { BasicCredentials, hashBasicPassword } from './basic-credentials';
import { ScryptQueue } from './scrypt-queue';

test('hashBasicPassword writes the documented format, which the route model accepts', () => {
  const hash = hashBasicPassword('pw', { N: 1024 });
  assert.match(hash, /^scrypt\$1024\$8\$1\$[A-Za-z0-9+/]+={0,2}\$[A-Za-z0-9+/]+={0,2}$/);
  assert.ok(parseBasicHash(hash) !== undefined);
  assert.notEqual(hashBasicPassword('pw', { N: 1024 }), hash, 'salted');
});

const check = (users: BasicCredentials, user: string, password: string): Promise<string> => users.verify(users.digest(user, password), user, password);

test('verify: right password, wrong password, unknown user; a right one is remembered', async () => {
  const users = new BasicCredentials({ dora: hashBasicPassword('open sesame', { N: 1024 }) }, new ScryptQueue());
  assert.equal(users.remembered(users.digest('dora', 'open sesame')), false);
  assert.equal(await check(users, 'dora', 'open sesame'), 'ok');
  assert.equal(users.remembered(users.digest('dora', 'open sesame')), true);
  assert.equal(await check(users, 'dora', 'open sesam'), 'refused');
  assert.equal(await check(users, 'eve', 'open sesame'), 'refused');
  assert.equal(users.remembered(users.digest('dora', 'open sesam')), false);
});

test('a full scrypt queue answers busy without deriving; concurrent checks of one pair share one derivation', async () => {
  const queue = new ScryptQueue(1, 0);
  const users = new BasicCredentials({ dora: hashBasicPassword('open sesame', { N: 1024 }) }, queue);
  const first = check(users, 'dora', 'wrong-1');
  const same = check(users, 'dora', 'wrong-1');
  // One slot, no waiting room: a different pair finds the queue full while the first derives.
  assert.equal(await check(users, 'dora', 'wrong-2'), 'busy');
  assert.deepEqual(await Promise.all([first, same]), ['refused', 'refused']);
});

test('the route model refuses plain-text passwords and weak parameters with the field', () => {
  for (const value of ['hunter2', 'scrypt$1000$8$1$AAAAAAAAAAAAAAAAAAAAAA==$' + 'A'.repeat(44), hashBasicPassword('x', { N: 1024 }).replace('$1024$', '$512$')]) {
    const result = normalizeRoute({ path: '/a', upstream: 'http://127.0.0.1:1', auth: { enabled: true, type: 'basic', basic: { users: { u: value } } } });
    assert.equal(result.ok, false, value);
    assert.match(result.ok ? '' : (result.errors[0]?.field ?? ''), /^auth\.basic\.users/);
  }
});
