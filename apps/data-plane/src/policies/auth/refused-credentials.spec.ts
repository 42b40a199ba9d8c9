import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RefusedCredentials } from './refused-credentials';

describe('RefusedCredentials', () => {
  it('remembers a refused digest for the ttl only', () => {
    let now = 0;
    const refused = new RefusedCredentials(5000, () => now);
    refused.add('d1');
    assert.equal(refused.has('d1'), true);
    assert.equal(refused.has('d2'), false);
    now = 5000;
    assert.equal(refused.has('d1'), false);
  });
});
