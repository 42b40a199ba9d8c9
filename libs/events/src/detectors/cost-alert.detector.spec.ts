import { test } from 'node:test';
import assert from 'node:assert/strict';
import { costAlertDetector, costConfidence, estimateCostUsd } from './cost-alert.detector';
import { defaultEventSettings, EventSettingsResolver } from './event-settings.types';
import { poissonUpperTail } from './stats';
import type { TrafficTick } from './traffic-tick';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const START = Date.UTC(2026, 10, 2);

function context(budgets = { daily: null as number | null, monthly: null as number | null }) {
  const settings = defaultEventSettings();
  settings.cost = { ...settings.cost, pricePerRequestUsd: 0.001, pricePerGbUsd: 0, budgets };
  return { settings, resolver: new EventSettingsResolver(settings), incidents: [], hostMemoryLimitBytes: 1 };
}
const tick = (at: number, requests: number, clients: Array<{ id: string; requests: number }> = []): TrafficTick => ({
  start: at,
  durationMs: HOUR,
  routes: [{ routeId: 'reports', requests, errors: 0, p95: 10, p99: 10, bytes: 0, clients }],
  upstreams: [],
  processes: [],
});

test('the cost model: requests x price + GB x price', () => {
  assert.equal(estimateCostUsd(1000, 2e9, { pricePerRequestUsd: 0.001, pricePerGbUsd: 0.5 }), 2);
});

test('confidence is exactly 1 - P(Poisson(λ) >= k), λ the requests that would cost the limit', () => {
  // 20 USD from 20,000 requests against 15 USD: λ = 15,000.
  assert.equal(costConfidence(20, 20_000, 15), 1 - poissonUpperTail(15_000, 20_000));
  assert.equal(costConfidence(0, 0, 15), 0);
});

test('fires when the window passes the threshold, with route, top_clients and time_to_monthly_limit', () => {
  const ctx = context({ daily: null, monthly: 1000 });
  const state = costAlertDetector.initialState();
  // 10 hours at 1,000 requests (1 USD) an hour: 10 USD in the day, under 15.
  for (let h = 0; h < 10; h++) assert.equal(costAlertDetector.evaluate(tick(START + h * HOUR, 1000), state, ctx).find((s) => s.event)?.event, undefined);
  const signals = costAlertDetector.evaluate(tick(START + 10 * HOUR, 6000, [{ id: 'key:charlie', requests: 5000 }, { id: 'key:alpha', requests: 1000 }]), state, ctx);
  const event = signals.find((s) => s.fingerprint === 'COST_ALERT:route:reports:window')?.event;
  assert.ok(event);
  assert.equal(event.data.current_value, 16);
  assert.equal(event.data.threshold, 15);
  assert.equal(event.context?.['route'], 'reports');
  assert.deepEqual((event.context?.['top_clients'] as Array<{ id: string }>).map((c) => c.id), ['key:charlie', 'key:alpha']);
  // 16 USD spent of 1,000; the window's rate is 16 USD a day: (1000 - 16) / 16 days.
  assert.equal(event.context?.['time_to_monthly_limit'], Math.round(((1000 - 16) / 16) * 86_400));
});

test('stays quiet under minSamples, and a daily budget is its own incident', () => {
  const ctx = context({ daily: 5, monthly: null });
  const state = costAlertDetector.initialState();
  // 9 requests at 10 USD each would pass everything, but minSamples is 10.
  ctx.settings.cost.pricePerRequestUsd = 10;
  assert.equal(costAlertDetector.evaluate(tick(START, 9), state, ctx).filter((s) => s.event).length, 0);
  const fired = costAlertDetector.evaluate(tick(START + HOUR, 1), state, ctx).filter((s) => s.event).map((s) => s.fingerprint);
  assert.deepEqual(fired, ['COST_ALERT:route:reports:window', 'COST_ALERT:route:reports:daily']);
  // A day later the window no longer holds them.
  assert.equal(costAlertDetector.evaluate(tick(START + 2 * DAY, 0), state, ctx).filter((s) => s.event).length, 0);
});
