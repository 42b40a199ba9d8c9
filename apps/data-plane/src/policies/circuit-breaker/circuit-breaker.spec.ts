import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Exchange } from '../../engine/exchange';
import { CircuitBreaker, type BreakerSettings, type BreakerState } from './circuit-breaker';

const exchange = (): Exchange => ({}) as Exchange;

function make(settings: Partial<BreakerSettings>): { breaker: CircuitBreaker; clock: { now: number }; changes: string[] } {
  const clock = { now: 1_000_000 };
  const changes: string[] = [];
  const breaker = new CircuitBreaker(
    'b',
    {
      kind: 'route',
      openMs: 1000,
      halfOpenRequests: 2,
      successThreshold: 2,
      thresholdPercent: 50,
      volumeThreshold: 4,
      windowMs: 10_000,
      failureThreshold: 3,
      ...settings,
    },
    { changed: (b, from: BreakerState, reason) => changes.push(`${from}->${b.state}${b.state === 'OPEN' ? `:${reason}` : ''}`) },
    () => clock.now,
  );
  return { breaker, clock, changes };
}

function outcome(breaker: CircuitBreaker, failed: boolean): boolean {
  const e = exchange();
  const admitted = breaker.admit(e);
  if (admitted) breaker.record(e, failed);
  return admitted;
}

test('route breaker: no trip below the volume threshold, trips when the error percent is reached', () => {
  const { breaker, changes } = make({});
  outcome(breaker, true);
  outcome(breaker, true);
  outcome(breaker, true);
  assert.equal(breaker.state, 'CLOSED', '3 failures < volumeThreshold 4');
  outcome(breaker, false);
  assert.equal(breaker.state, 'OPEN', '3 of 4 = 75% >= 50%');
  assert.deepEqual(changes, ['CLOSED->OPEN:failures']);
});

test('route breaker: below the percent stays closed; old outcomes leave the rolling window', () => {
  const { breaker, clock } = make({});
  for (const failed of [true, false, false, false, false]) outcome(breaker, failed);
  assert.equal(breaker.state, 'CLOSED', '1 of 5 = 20%');
  clock.now += 11_000;
  assert.equal(breaker.status().successes, 0, 'the window forgot them');
  for (const failed of [true, true, false]) outcome(breaker, failed);
  assert.equal(breaker.state, 'CLOSED', '3 outcomes in the window < volume 4');
  outcome(breaker, true);
  assert.equal(breaker.state, 'OPEN');
});

test('upstream breaker: failureThreshold consecutive failures; a success starts the count again', () => {
  const { breaker } = make({ kind: 'upstream' });
  outcome(breaker, true);
  outcome(breaker, true);
  outcome(breaker, false);
  outcome(breaker, true);
  outcome(breaker, true);
  assert.equal(breaker.state, 'CLOSED');
  assert.equal(breaker.status().failures, 2);
  outcome(breaker, true);
  assert.equal(breaker.state, 'OPEN');
});

test('OPEN rejects until the timeout, then HALF_OPEN admits halfOpenRequests; successThreshold closes', () => {
  const { breaker, clock, changes } = make({ kind: 'upstream', failureThreshold: 1 });
  outcome(breaker, true);
  assert.equal(breaker.admit(exchange()), false);
  assert.equal(breaker.retryAfterSeconds(), 1);
  clock.now += 999;
  assert.equal(breaker.admit(exchange()), false);
  clock.now += 1;
  assert.equal(breaker.status().state, 'HALF_OPEN');
  const [a, b, c] = [exchange(), exchange(), exchange()];
  assert.equal(breaker.admit(a), true);
  assert.equal(breaker.admit(b), true);
  assert.equal(breaker.admit(c), false, 'only 2 test requests at a time');
  breaker.record(a, false);
  assert.equal(breaker.state, 'HALF_OPEN');
  breaker.release(b); // client left: the slot is free again, nothing counted
  assert.equal(breaker.admit(c), true);
  breaker.record(c, false);
  assert.equal(breaker.state, 'CLOSED');
  assert.deepEqual(changes, ['CLOSED->OPEN:failures', 'OPEN->HALF_OPEN', 'HALF_OPEN->CLOSED']);
});

test('a failed test request in HALF_OPEN opens the circuit again for a full timeout', () => {
  const { breaker, clock, changes } = make({ kind: 'upstream', failureThreshold: 1 });
  outcome(breaker, true);
  clock.now += 1000;
  const e = exchange();
  assert.equal(breaker.admit(e), true);
  breaker.record(e, true);
  assert.equal(breaker.state, 'OPEN');
  clock.now += 999;
  assert.equal(breaker.admit(exchange()), false);
  assert.deepEqual(changes, ['CLOSED->OPEN:failures', 'OPEN->HALF_OPEN', 'HALF_OPEN->OPEN:half-open-failure']);
});

test('manual trip and reset from any state', () => {
  const { breaker, changes } = make({});
  breaker.trip();
  assert.equal(breaker.state, 'OPEN');
  assert.equal(breaker.admit(exchange()), false);
  breaker.reset();
  assert.equal(breaker.state, 'CLOSED');
  assert.equal(breaker.admit(exchange()), true);
  assert.deepEqual(changes, ['CLOSED->OPEN:manual', 'OPEN->CLOSED']);
  assert.equal(breaker.status().lastFailureTime, null);
});

test('a held trip stays OPEN past openMs until the hold ends (no HALF_OPEN test), then tests as usual', () => {
  const { breaker, clock, changes } = make({});
  breaker.trip(clock.now + 5000);
  clock.now += 1500;
  assert.equal(breaker.observedState(), 'OPEN');
  assert.equal(outcome(breaker, false), false);
  assert.equal(breaker.retryAfterSeconds(), 4);
  clock.now += 3500;
  assert.equal(breaker.observedState(), 'HALF_OPEN');
  assert.equal(outcome(breaker, false), true);
  assert.deepEqual(changes, ['CLOSED->OPEN:manual', 'OPEN->HALF_OPEN']);
});

test('a reset ends a hold; a later trip without one follows openMs again', () => {
  const { breaker, clock } = make({});
  breaker.trip(clock.now + 60_000);
  breaker.reset();
  assert.equal(breaker.observedState(), 'CLOSED');
  breaker.trip();
  clock.now += 1000;
  assert.equal(breaker.observedState(), 'HALF_OPEN');
});

test('of two holds the later end wins', () => {
  const { breaker, clock } = make({});
  breaker.trip(clock.now + 10_000);
  breaker.trip(clock.now + 2000);
  clock.now += 5000;
  assert.equal(breaker.observedState(), 'OPEN');
});
