import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { OutgoingHttpHeaders } from 'node:http';
import { identityHeaderValue, removeClientIdentityHeaders } from './identity-headers';

describe('identity headers', () => {
  it('removes every spelling of an identity header and nothing else', () => {
    const headers: OutgoingHttpHeaders = {
      'x-gateway-user-id': 'a',
      x_gateway_user_id: 'b',
      'x-gateway_key-id': 'c',
      x_gateway_auth: 'd',
      'x-gateway-user-idx': 'kept',
      'x-gateway-user': 'kept',
      'y_gateway_auth': 'kept',
      accept: 'kept',
    };
    removeClientIdentityHeaders(headers);
    assert.deepEqual(headers, { 'x-gateway-user-idx': 'kept', 'x-gateway-user': 'kept', y_gateway_auth: 'kept', accept: 'kept' });
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
