import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DetectorEngine } from './detector-engine';
import { errorRateConfidence, errorRateSpikeDetector } from './error-rate-spike.detector';
import { defaultEventSettings, EventSettingsResolver } from './event-settings.types';
import { binomialUpperTail } from './stats';
import type { RouteTick, TrafficTick } from './traffic-tick';

const TICK = 10_000;
const route = (routeId: string, requests: number, errors: number): RouteTick => ({ routeId, requests, errors, p95: 50, p99: 80, bytes: 0, clients: [] });
const tick = (index: number, routes: RouteTick[]): TrafficTick => ({ start: index * TICK, durationMs: TICK, routes, upstreams: [], processes: [] });
const context = (settings = defaultEventSettings()) => ({ settings, resolver: new EventSettingsResolver(settings), incidents: [], hostMemoryLimitBytes: 1 });

test('confidence is exactly 1 - P(Binomial(n, threshold) >= k)', () => {
  const cases: Array<[number, number, number]> = [
    [100, 20, 10],
    [30, 4, 10],
    [5, 5, 10],
    [2000, 260, 10],
  ];
  for (const [n, k, threshold] of cases) assert.equal(errorRateConfidence(n, k, threshold), 1 - binomialUpperTail(n, threshold / 100, k));
  // 20 errors in 100 requests at a 10 % threshold: P(X >= 20) = 0.0019786 (the exact sum).
  assert.ok(Math.abs(errorRateConfidence(100, 20, 10) - (1 - 0.0019785609)) < 1e-9);
});

test('fires on a spike over the window with the spec 6.1 shape; CRITICAL at three times the threshold', () => {
  const state = errorRateSpikeDetector.initialState();
  let signals = errorRateSpikeDetector.evaluate(tick(0, [route('orders', 100, 1)]), state, context());
  assert.equal(signals[0]?.event, undefined);
  signals = errorRateSpikeDetector.evaluate(tick(1, [route('orders', 100, 59)]), state, context());
  const event = signals[0]?.event;
  assert.ok(event);
  // The window holds both ticks: 60 of 200 = 30 %, exactly three times 10 %.
  assert.deepEqual(Object.keys(event).sort(), ['confidence', 'context', 'data', 'severity', 'summary', 'type']);
  assert.equal(event.type, 'ERROR_RATE_SPIKE');
  assert.equal(event.severity, 'CRITICAL');
  assert.deepEqual(event.data, { current_value: 30, threshold: 10, breach_ratio: 3, trend: 'RISING' });
  assert.equal(event.confidence, Math.round(errorRateConfidence(200, 60, 10) * 1e4) / 1e4);
  assert.equal(event.context?.['route'], 'orders');
});

test('stays quiet below minSamples, below the confidence bar, and once errors leave the window', () => {
  const settings = defaultEventSettings();
  const state = errorRateSpikeDetector.initialState();
  // 2 of 4 failed: 50 %, but fewer than minSamples (5).
  assert.equal(errorRateSpikeDetector.evaluate(tick(0, [route('quiet', 4, 2)]), state, context(settings))[0]?.event, undefined);
  // 3 of 15 in the window (20 %): P(Binomial(15, 0.1) >= 3) = 0.184, confidence 0.82 < 0.99.
  assert.equal(errorRateSpikeDetector.evaluate(tick(1, [route('quiet', 11, 1)]), state, context(settings))[0]?.event, undefined);
  // 31 ticks later the window (5 min) holds none of it.
  const later = errorRateSpikeDetector.evaluate(tick(40, []), state, context(settings));
  assert.equal(later[0]?.ratio, 0);
  assert.deepEqual(state.routes, {});
});

test('per-route overrides replace the global threshold for that route only', () => {
  const settings = defaultEventSettings();
  settings.routes = [{ routeId: 'strict', errorRate: { threshold: 1 } }];
  const state = errorRateSpikeDetector.initialState();
  const signals = errorRateSpikeDetector.evaluate(tick(0, [route('strict', 1000, 30), route('lenient', 1000, 30)]), state, context(settings));
  assert.equal(signals.find((s) => s.routeId === 'strict')?.event?.data.threshold, 1);
  assert.equal(signals.find((s) => s.routeId === 'lenient')?.event, undefined);
});

test('one incident, one event: a sustained spike emits once, escalates once, mutes under an open breaker and recovers', () => {
  const engine = new DetectorEngine([errorRateSpikeDetector], defaultEventSettings());
  const all = [];
  for (let i = 0; i < 30; i++) all.push(...engine.evaluate(tick(i, [route('orders', 100, i < 10 ? 15 : 50)]), { hostMemoryLimitBytes: 1 }).events);
  assert.deepEqual(all.map((e) => [e.reason, e.event.severity]), [['opened', 'WARNING'], ['escalated', 'CRITICAL']]);
  assert.equal(all[0]?.incidentId, all[1]?.incidentId);
  const muted = new DetectorEngine([errorRateSpikeDetector], defaultEventSettings());
  const open = { ...route('payments', 100, 90), breaker: 'OPEN' as const };
  const result = muted.evaluate(tick(0, [open]), { hostMemoryLimitBytes: 1 });
  assert.deepEqual(result.events, []);
  assert.equal(result.muted, 1);
});
