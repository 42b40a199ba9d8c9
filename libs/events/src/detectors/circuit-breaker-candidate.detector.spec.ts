import { test } from 'node:test';
import assert from 'node:assert/strict';
import { breakerCandidateConfidence, circuitBreakerCandidateDetector } from './circuit-breaker-candidate.detector';
import { defaultEventSettings, EventSettingsResolver } from './event-settings.types';
import { binomialUpperTail } from './stats';
import type { TrafficTick, UpstreamTick } from './traffic-tick';

const settings = defaultEventSettings();
const context = { settings, resolver: new EventSettingsResolver(settings), incidents: [], hostMemoryLimitBytes: 1 };
const tick = (index: number, upstream: UpstreamTick): TrafficTick => ({ start: index * 10_000, durationMs: 10_000, routes: [], upstreams: [upstream], processes: [] });

test('confidence is exactly 1 - P(Binomial(n, failurePercent) >= k)', () => {
  assert.equal(breakerCandidateConfidence(60, 58, 85), 1 - binomialUpperTail(60, 0.85, 58));
});

test('fires on an unprotected upstream failing badly', () => {
  const state = circuitBreakerCandidateDetector.initialState();
  const event = circuitBreakerCandidateDetector.evaluate(tick(0, { upstream: 'billing', requests: 60, failures: 58 }), state, context)[0]?.event;
  assert.equal(event?.type, 'CIRCUIT_BREAKER_CANDIDATE');
  assert.equal(event?.context?.['upstream'], 'billing');
  assert.equal(event?.data.threshold, 85);
});

test('stays quiet under minRequests, under the rate, and while a breaker acts (OPEN now or within 5 minutes)', () => {
  const state = circuitBreakerCandidateDetector.initialState();
  const quiet = (index: number, upstream: UpstreamTick): void => assert.equal(circuitBreakerCandidateDetector.evaluate(tick(index, upstream), state, context)[0]?.event, undefined);
  quiet(0, { upstream: 'a', requests: 49, failures: 49 });
  quiet(1, { upstream: 'a', requests: 100, failures: 80 });
  quiet(2, { upstream: 'a', requests: 100, failures: 100, breaker: 'OPEN' });
  quiet(3, { upstream: 'a', requests: 100, failures: 100, breaker: 'CLOSED' });
  const later = circuitBreakerCandidateDetector.evaluate(tick(40, { upstream: 'a', requests: 100, failures: 100, breaker: 'CLOSED' }), state, context)[0]?.event;
  assert.equal(later?.type, 'CIRCUIT_BREAKER_CANDIDATE');
});
