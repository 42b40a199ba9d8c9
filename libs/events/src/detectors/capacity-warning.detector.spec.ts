import { test } from 'node:test';
import assert from 'node:assert/strict';
import { capacityConfidence, capacityWarningDetector } from './capacity-warning.detector';
import { defaultEventSettings, EventSettingsResolver } from './event-settings.types';
import type { ProcessTick, TrafficTick } from './traffic-tick';

const settings = defaultEventSettings();
const GiB = 1024 ** 3;
const context = { settings, resolver: new EventSettingsResolver(settings), incidents: [], hostMemoryLimitBytes: GiB };
const tick = (index: number, process: Partial<ProcessTick>): TrafficTick => ({
  start: index * 10_000,
  durationMs: 10_000,
  routes: [],
  upstreams: [],
  processes: [{ instanceId: 'dp-1', role: 'data-plane', rssBytes: 0.5 * GiB, eventLoopLagMs: 5, openConnections: 10, ...process }],
});

test('confidence is exactly the share of the last six evaluations above the level', () => {
  assert.equal(capacityConfidence([1, 1, 0, 1, 1, 1]), 5 / 6);
  assert.equal(capacityConfidence([1, 1]), 2 / 6);
});

test('MEMORY fires after `persistence` evaluations at 85 % of the limit, with resourceType', () => {
  const state = capacityWarningDetector.initialState();
  const first = capacityWarningDetector.evaluate(tick(0, { rssBytes: 0.9 * GiB }), state, context).find((s) => s.event);
  assert.equal(first, undefined);
  const event = capacityWarningDetector.evaluate(tick(1, { rssBytes: 0.9 * GiB }), state, context).find((s) => s.event)?.event;
  assert.equal(event?.type, 'CAPACITY_WARNING');
  assert.equal(event?.context?.['resourceType'], 'MEMORY');
  assert.equal(event?.confidence, Math.round((2 / 6) * 1e4) / 1e4);
});

test('event-loop lag and connections have their own resource types; normal gauges stay quiet', () => {
  const state = capacityWarningDetector.initialState();
  for (let i = 0; i < 10; i++) assert.equal(capacityWarningDetector.evaluate(tick(i, {}), state, context).filter((s) => s.event).length, 0);
  capacityWarningDetector.evaluate(tick(10, { eventLoopLagMs: 250, openConnections: 9000 }), state, context);
  const fired = capacityWarningDetector.evaluate(tick(11, { eventLoopLagMs: 250, openConnections: 9000 }), state, context).filter((s) => s.event).map((s) => s.event?.context?.['resourceType']);
  assert.deepEqual(fired, ['EVENT_LOOP', 'CONNECTIONS']);
});
