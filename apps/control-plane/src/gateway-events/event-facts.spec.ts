import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eventFacts } from './event-facts';

const envelope = (type: string, data: Record<string, unknown>) => ({ id: 'evt_1', type, createdAt: '2026-01-01T00:00:00.000Z', data });

test('a spec 6.1 detector event: confidence, severity, route, upstream and the error rate are read', () => {
  const facts = eventFacts(
    envelope('ERROR_RATE_SPIKE', { severity: 'critical', summary: 'errors up', confidence: 0.93, data: { current_value: 0.4, threshold: 0.05 }, context: { route: 'users', upstream: 'users-svc' } }),
  );
  assert.deepEqual(facts, {
    id: 'evt_1',
    type: 'ERROR_RATE_SPIKE',
    createdAt: '2026-01-01T00:00:00.000Z',
    confidence: 0.93,
    severity: 'CRITICAL',
    summary: 'errors up',
    routeIds: ['users'],
    upstreams: ['users-svc'],
    errorRate: 0.4,
  });
});

test('a data plane breaker event counts as certain and names its routes', () => {
  const facts = eventFacts(envelope('circuit_breaker.opened', { breaker: 'route:a', routeIds: ['a', 'b'], reason: 'failures' }));
  assert.deepEqual([facts.confidence, facts.severity, facts.routeIds, facts.summary], [1, 'WARNING', ['a', 'b'], 'circuit_breaker.opened']);
});

test('hostile or odd fields never throw and are bounded', () => {
  const cases: Array<Record<string, unknown>> = [
    { confidence: 'high', severity: 7, context: null, data: [] },
    { confidence: 9, context: { route: { id: 'x'.repeat(201) }, routes: Array.from({ length: 50 }, (_, i) => `r${i}`) } },
    { confidence: -1, context: { route: { id: 'obj' }, resourceType: 'x'.repeat(101) }, summary: 's'.repeat(600) },
  ];
  const read = cases.map((data) => eventFacts(envelope('LATENCY_ANOMALY', data)));
  assert.deepEqual([read[0]?.confidence, read[0]?.severity, read[0]?.routeIds], [1, 'INFO', []]);
  assert.deepEqual([read[1]?.confidence, read[1]?.routeIds.length], [1, 20]);
  assert.deepEqual([read[2]?.confidence, read[2]?.routeIds, read[2]?.resourceType, read[2]?.summary.length], [0, ['obj'], undefined, 500]);
});
