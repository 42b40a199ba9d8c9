import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultEventSettings, EventSettingsResolver } from './event-settings.types';
import { LATENCY_MIN_BASELINE_MINUTES, latencyAnomalyDetector, latencyConfidence, latencyTrigger } from './latency-anomaly.detector';
import { normalCdf } from './stats';
import type { TrafficTick } from './traffic-tick';

const TICK = 10_000;
const settings = defaultEventSettings();
const context = { settings, resolver: new EventSettingsResolver(settings), incidents: [], hostMemoryLimitBytes: 1 };
const tick = (index: number, p95: number, requests = 50): TrafficTick => ({
  start: index * TICK,
  durationMs: TICK,
  routes: [{ routeId: 'payments', requests, errors: 0, p95, p99: p95 * 1.5, bytes: 0, clients: [] }],
  upstreams: [],
  processes: [],
});
/** 40 minutes of p95 alternating 95/105 ms: median 100, MAD 5. */
function learned() {
  const state = latencyAnomalyDetector.initialState();
  let index = 0;
  for (; index < (LATENCY_MIN_BASELINE_MINUTES + 10) * 6; index++) latencyAnomalyDetector.evaluate(tick(index, Math.floor(index / 6) % 2 === 0 ? 95 : 105), state, context);
  return { state, index };
}

test('confidence is exactly Φ(z - zThreshold): 0.5 at the threshold', () => {
  assert.equal(latencyConfidence(3.5, 3.5), normalCdf(0));
  assert.equal(latencyConfidence(5, 3.5), normalCdf(1.5));
});

test('the trigger level is the largest of the z-score, ratio and absolute floors', () => {
  // median 100, MAD 5: z floor 100 + 3.5 x 7.413 = 125.9; ratio floor 200; delta floor 150.
  assert.equal(latencyTrigger(100, 5, settings.latency), 200);
  // median 100, MAD 40: z floor 100 + 3.5 x 59.3 = 307.6.
  assert.ok(Math.abs(latencyTrigger(100, 40, settings.latency) - (100 + 3.5 * 1.4826 * 40)) < 1e-9);
});

test('fires after `persistence` evaluations far above the route\'s normal, and not before the baseline exists', () => {
  const fresh = latencyAnomalyDetector.initialState();
  assert.equal(latencyAnomalyDetector.evaluate(tick(0, 900), fresh, context)[0]?.event, undefined);
  const { state, index } = learned();
  assert.equal(latencyAnomalyDetector.evaluate(tick(index, 450), state, context)[0]?.event, undefined);
  const event = latencyAnomalyDetector.evaluate(tick(index + 1, 450), state, context)[0]?.event;
  assert.ok(event);
  assert.equal(event.type, 'LATENCY_ANOMALY');
  assert.equal(event.severity, 'CRITICAL');
  assert.equal(event.data.threshold, 200);
  assert.equal(event.data.current_value, 450);
  assert.equal(event.context?.['baseline_median_ms'], 100);
});

test('stays quiet on noise within the normal band and on evaluations below minSamples', () => {
  const { state, index } = learned();
  for (let i = 0; i < 60; i++) assert.equal(latencyAnomalyDetector.evaluate(tick(index + i, i % 2 === 0 ? 180 : 120), state, context)[0]?.event, undefined);
  for (let i = 0; i < 5; i++) assert.equal(latencyAnomalyDetector.evaluate(tick(index + 60 + i, 5000, 2), state, context)[0]?.event, undefined);
});
