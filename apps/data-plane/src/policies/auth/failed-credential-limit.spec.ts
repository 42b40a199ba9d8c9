import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FailedCredentialLimit } from './failed-credential-limit';

describe('FailedCredentialLimit', () => {
  it('allows maxFailures attempts per window and address, then says how long to wait; refunds give attempts back', () => {
    let now = 1_000_000;
    const limit = new FailedCredentialLimit({ maxFailures: 3, windowMs: 10_000, maxAddresses: 100 }, () => now);
    assert.deepEqual([1, 2, 3].map(() => limit.attempt('203.0.113.1')), [0, 0, 0]);
    assert.equal(limit.attempt('203.0.113.1'), 10, 'blocked for the rest of the window');
    assert.equal(limit.attempt('203.0.113.2'), 0, 'another address is not');
    limit.refund('203.0.113.1');
    assert.equal(limit.attempt('203.0.113.1'), 0, 'a refunded attempt can be used again');
    now += 4_500;
    assert.equal(limit.attempt('203.0.113.1'), 6, 'rounded up');
    now += 5_500;
    assert.equal(limit.attempt('203.0.113.1'), 0, 'a new window');
  });

  it('an address that used up a window gets one attempt per window until a credential of it is right', () => {
    let now = 0;
    const limit = new FailedCredentialLimit({ maxFailures: 3, windowMs: 1000, maxAddresses: 100 }, () => now);
    for (let i = 0; i < 3; i += 1) limit.attempt('a');
    assert.notEqual(limit.attempt('a'), 0);
    now = 1000;
    assert.equal(limit.attempt('a'), 0, 'probation: one attempt');
    assert.notEqual(limit.attempt('a'), 0);
    now = 2000;
    assert.equal(limit.attempt('a'), 0);
    limit.succeeded('a');
    assert.deepEqual([1, 2, 3].map(() => limit.attempt('a')), [0, 0, 0], 'a right credential ends probation (and costs no attempt)');
    now = 3000;
    limit.attempt('b');
    now = 4000;
    assert.deepEqual([1, 2, 3].map(() => limit.attempt('b')), [0, 0, 0], 'a window not used up keeps the full allowance');
  });

  it('holds at most maxAddresses: the oldest are forgotten whole', () => {
    const limit = new FailedCredentialLimit({ maxFailures: 1, windowMs: 60_000, maxAddresses: 4 });
    assert.equal(limit.attempt('a'), 0);
    assert.notEqual(limit.attempt('a'), 0);
    for (const address of ['b', 'c', 'd', 'e', 'f']) limit.attempt(address);
    assert.equal(limit.attempt('a'), 0, 'a was in the generation dropped');
  });
});
