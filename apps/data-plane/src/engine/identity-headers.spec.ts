import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { identityHeaderValue, isClientIdentityHeader } from './identity-headers';

describe('identity headers', () => {
  it('recognises every spelling of an identity header and nothing else', () => {
    for (const name of ['x-gateway-user-id', 'x_gateway_user_id', 'x-gateway_key-id', 'x_gateway_auth', 'x-gateway-user-email', 'x-gateway-user-role']) {
      assert.equal(isClientIdentityHeader(name), true, name);
    }
    for (const name of ['x-gateway-user-idx', 'x-gateway-user', 'y_gateway_auth', 'accept', 'x-forwarded-for']) {
      assert.equal(isClientIdentityHeader(name), false, name);
    }
  });

  it('keeps plain ASCII ids as they are and percent-encodes everything else as UTF-8', () => {
    assert.equal(identityHeaderValue('user-1@example.test'), 'user-1@example.test');
    assert.equal(identityHeaderValue('jos\u00e9'), 'jos%C3%A9');
    assert.equal(identityHeaderValue('a\r\nInjected: 1'), 'a%0D%0AInjected:%201');
    assert.equal(identityHeaderValue('100%'), '100%25');
    assert.equal(identityHeaderValue('\ud83d\ude00'), '%F0%9F%98%80');
    assert.equal(identityHeaderValue('lone\ud800'), 'lone%EF%BF%BD');
  });
});
