import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DetectorEngine } from './detector-engine';
import { DETECTORS } from './detector-registry';
import { defaultEventSettings } from './event-settings.types';
import { recoveryConfidence } from './recovery-signal.detector';
import type { RouteTick, TrafficTick } from './traffic-tick';

const TICK = 10_000;
const route = (requests: number, errors: number, extra: Partial<RouteTick> = {}): RouteTick => ({ routeId: 'orders', requests, errors, p95: 50, p99: 80, bytes: 0, clients: [], ...extra });
const tick = (index: number, routes: RouteTick[]): TrafficTick => ({ start: index * TICK, durationMs: TICK, routes, upstreams: [], processes: [] });
const input = { hostMemoryLimitBytes: 2 ** 31 };

test('an incident ends with one RECOVERY_SIGNAL after quietWindows calm evaluations, with the spec body in its context', () => {
  const engine = new DetectorEngine(DETECTORS, defaultEventSettings());
  const events = [];
  // 5 minutes of 50 % errors, then clean traffic until the window forgets them and 5 more evaluations pass.
  for (let i = 0; i < 30; i++) events.push(...engine.evaluate(tick(i, [route(100, 50)]), input).events);
  for (let i = 30; i < 80; i++) events.push(...engine.evaluate(tick(i, [route(100, 0)]), input).events);
  assert.deepEqual(events.map((e) => `${e.reason} ${e.event.type}`), ['opened ERROR_RATE_SPIKE', 'recovered RECOVERY_SIGNAL']);
  const recovery = events[1]?.event;
  assert.equal(recovery?.severity, 'INFO');
  assert.equal(recovery?.context?.['recovery_status'], 'COMPLETE');
  assert.equal(recovery?.context?.['stability_assessment'], 'STABLE');
  assert.equal(recovery?.context?.['regression_risk'], 'LOW');
  assert.deepEqual(recovery?.context?.['actions_taken'], []);
  assert.equal(recovery?.context?.['incident_id'], events[0]?.incidentId);
  assert.equal(recovery?.confidence, 1);
  assert.deepEqual(engine.openIncidents(), []);
});

test('recovery confidence is the share of quiet evaluations below 80 % of the level', () => {
  assert.equal(recoveryConfidence([0.1, 0.5, 0.79, 0.85, 0.2]), 0.8);
  assert.equal(recoveryConfidence([]), 0);
});

test('a restored engine keeps its incidents and baselines: the same breach after a restart emits nothing new', () => {
  const engine = new DetectorEngine(DETECTORS, defaultEventSettings());
  for (let i = 0; i < 5; i++) engine.evaluate(tick(i, [route(100, 50)]), input);
  const stored = JSON.parse(JSON.stringify(engine.snapshot())) as unknown;
  const restarted = new DetectorEngine(DETECTORS, defaultEventSettings());
  const { reset } = restarted.restore(stored);
  assert.deepEqual(reset, []);
  assert.equal(restarted.openIncidents().length, 1);
  assert.deepEqual(restarted.evaluate(tick(5, [route(100, 50)]), input).events, []);
});

test('an unusable stored state starts the detector over and says which', () => {
  const engine = new DetectorEngine(DETECTORS, defaultEventSettings());
  const { reset } = engine.restore({ detectors: { ERROR_RATE_SPIKE: { routes: { orders: { counts: 'x' } } } }, incidents: [{ id: 1 }] });
  assert.ok(reset.includes('ERROR_RATE_SPIKE'));
  assert.deepEqual(engine.openIncidents(), []);
});

test('the same tick evaluated by two engines yields the same event ids (instances dedupe on them)', () => {
  const a = new DetectorEngine(DETECTORS, defaultEventSettings());
  const b = new DetectorEngine(DETECTORS, defaultEventSettings());
  const ea = a.evaluate(tick(3, [route(100, 60)]), input).events;
  const eb = b.evaluate(tick(3, [route(100, 60)]), input).events;
  assert.equal(ea.length, 1);
  assert.deepEqual(ea.map((e) => e.id), eb.map((e) => e.id));
});

test('a breaker seen OPEN keeps the route muted for breakerMuteHold, then the spike is reported', () => {
  const engine = new DetectorEngine(DETECTORS, defaultEventSettings());
  assert.equal(engine.evaluate(tick(0, [route(100, 90, { breaker: 'OPEN' })]), input).muted, 1);
  // 4 minutes later, closed but still failing: muted (hold 5 min).
  assert.deepEqual(engine.evaluate(tick(24, [route(100, 90, { breaker: 'CLOSED' })]), input).events, []);
  const after = engine.evaluate(tick(31, [route(100, 90, { breaker: 'CLOSED' })]), input).events;
  assert.deepEqual(after.map((e) => e.event.type), ['ERROR_RATE_SPIKE']);
  // A circuit_breaker.opened event for the route mutes it too.
  const other = new DetectorEngine(DETECTORS, defaultEventSettings());
  assert.equal(other.evaluate(tick(0, [route(100, 90)]), { ...input, openedBreakerRoutes: ['orders'] }).muted, 1);
});
