import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kindMatches, webhookWants } from './webhook-event-filter';

test('kinds: exact, prefix.* and *', () => {
  const cases: Array<[string[], string, boolean]> = [
    [['circuit_breaker.opened'], 'circuit_breaker.opened', true],
    [['circuit_breaker.opened'], 'circuit_breaker.closed', false],
    [['circuit_breaker.*'], 'circuit_breaker.closed', true],
    [['circuit_breaker.*'], 'circuit_breakers.x', false],
    [['*'], 'ERROR_RATE_SPIKE', true],
    [['ERROR_RATE_SPIKE', 'route.*'], 'route.deleted', true],
  ];
  for (const [patterns, kind, expected] of cases) assert.equal(kindMatches(patterns, kind), expected, `${patterns.join(',')} ~ ${kind}`);
});

test('severity filters only events that carry one', () => {
  const critical = { events: ['*'], severity: ['CRITICAL'] };
  assert.equal(webhookWants(critical, { type: 'ERROR_RATE_SPIKE', data: { severity: 'CRITICAL' } }), true);
  assert.equal(webhookWants(critical, { type: 'ERROR_RATE_SPIKE', data: { severity: 'WARNING' } }), false);
  assert.equal(webhookWants(critical, { type: 'circuit_breaker.opened', data: { breaker: 'route:a' } }), true);
  assert.equal(webhookWants({ events: ['*'], severity: null }, { type: 'ERROR_RATE_SPIKE', data: { severity: 'WARNING' } }), true);
});
