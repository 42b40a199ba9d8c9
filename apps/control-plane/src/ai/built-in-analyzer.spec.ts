import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AnalysisContext } from './analysis-context';
import { analyzeBuiltIn } from './built-in-analyzer';

const base: AnalysisContext = {
  window: { from: '2026-01-01T10:00:00.000Z', to: '2026-01-01T11:00:00.000Z' },
  incident: { id: 'i', title: 't', status: 'open', severity: 'CRITICAL', routes: ['users'], upstreams: [], hypothesis: null },
  events: [
    { id: 'e1', type: 'ERROR_RATE_SPIKE', at: '2026-01-01T10:10:00.000Z', text: 'ERROR_RATE_SPIKE (CRITICAL, confidence 0.9): x' },
    { id: 'e2', type: 'LATENCY_ANOMALY', at: '2026-01-01T10:12:00.000Z', text: 'LATENCY_ANOMALY (WARNING, confidence 0.5): y' },
  ],
  configChanges: [
    { id: 'a1', at: '2026-01-01T10:05:00.000Z', action: 'route.update', target: 'users', actor: 'ops@example.com' },
    { id: 'a2', at: '2026-01-01T08:00:00.000Z', action: 'route.update', target: 'users', actor: 'ops@example.com' },
    { id: 'a3', at: '2026-01-01T10:20:00.000Z', action: 'route.update', target: 'users', actor: 'ops@example.com' },
  ],
  metrics: [],
};

test('causes ranked by confidence: the failing upstream, a change just before on the route, the slowness; one breaker suggestion per route', () => {
  const findings = analyzeBuiltIn(base);
  assert.deepEqual(
    findings.causes.map((c) => [c.cause, c.confidence, c.evidence.map((e) => e.ref)]),
    [
      ['the upstream of users fails', 0.72, ['e1']],
      ['configuration change route.update on users by ops@example.com shortly before the first event', 0.6, ['a1', 'e1']],
      ['the upstream of users is slow', 0.4, ['e2']],
    ],
  );
  assert.deepEqual(findings.suggestedActions, [{ type: 'CIRCUIT_BREAKER', operation: 'OPEN', duration: 300, routeId: 'users' }]);
  assert.match(findings.summary, /^2 event\(s\) on users .* most likely the upstream of users fails \(confidence 0\.72\)\.$/);
});

test('no events: nothing to explain, no causes, no suggestion', () => {
  assert.deepEqual(analyzeBuiltIn({ ...base, events: [], configChanges: [] }), {
    summary: 'No events between 2026-01-01T10:00:00.000Z and 2026-01-01T11:00:00.000Z: nothing to explain.',
    causes: [],
    suggestedActions: [],
  });
});
