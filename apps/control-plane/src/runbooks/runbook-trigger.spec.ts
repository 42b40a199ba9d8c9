import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { EventFacts } from '../gateway-events/event-facts';
import type { RunbookConditions } from './runbook-definition';
import { runsWithoutApproval, triggerMatches } from './runbook-trigger';

const facts: EventFacts = { id: 'e', type: 'ERROR_RATE_SPIKE', createdAt: '', confidence: 0.85, severity: 'CRITICAL', summary: '', routeIds: ['users'], upstreams: ['svc'], errorRate: 0.3, resourceType: 'deployment' };

test('a trigger matches its kind and every condition it sets', () => {
  const cases: Array<[string, RunbookConditions, boolean]> = [
    ['ERROR_RATE_SPIKE', {}, true],
    ['LATENCY_ANOMALY', {}, false],
    ['ERROR_RATE_SPIKE', { confidenceMin: 0.85 }, true],
    ['ERROR_RATE_SPIKE', { confidenceMin: 0.9 }, false],
    ['ERROR_RATE_SPIKE', { errorRateMin: 0.3 }, true],
    ['ERROR_RATE_SPIKE', { errorRateMin: 0.31 }, false],
    ['ERROR_RATE_SPIKE', { routeId: 'users', upstream: 'svc', resourceType: 'deployment' }, true],
    ['ERROR_RATE_SPIKE', { routeId: 'orders' }, false],
    ['ERROR_RATE_SPIKE', { upstream: 'other' }, false],
    ['ERROR_RATE_SPIKE', { resourceType: 'pod' }, false],
  ];
  for (const [eventType, conditions, expected] of cases) assert.equal(triggerMatches({ eventType, conditions }, facts), expected, JSON.stringify([eventType, conditions]));
  const { errorRate: _dropped, ...withoutRate } = facts;
  assert.equal(triggerMatches({ eventType: 'ERROR_RATE_SPIKE', conditions: { errorRateMin: 0 } }, withoutRate), false, 'no measured rate: an errorRate condition fails');
});

test('only no-approval runbooks with a confidence strictly above 0.8 run at once', () => {
  const cases: Array<[boolean, number, boolean]> = [
    [false, 0.81, true],
    [false, 0.8, false],
    [false, 0.5, false],
    [true, 0.99, false],
  ];
  for (const [requiresApproval, confidence, expected] of cases) assert.equal(runsWithoutApproval(requiresApproval, { ...facts, confidence }), expected, `${requiresApproval} ${confidence}`);
});
