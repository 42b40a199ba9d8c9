import 'reflect-metadata';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultEventSettings } from '@gateway/events';
import { GENERAL_SETTINGS_SECTION } from '../settings/general-settings.section';
import type { SettingsSection } from '../settings/settings-section';
import { validateSettingsDocument } from '../settings/settings-document.validator';
import { EVENTS_SETTINGS_SECTION } from './events-settings.section';

const sections = [GENERAL_SETTINGS_SECTION, EVENTS_SETTINGS_SECTION] as unknown as SettingsSection[];

test('the defaults are valid and are what an empty section gets', () => {
  const result = validateSettingsDocument({ events: {} }, sections);
  assert.ok(result.ok);
  assert.deepEqual(result.document['events'], defaultEventSettings());
});

test('per-route overrides of any subset of fields are kept; fields left out take their defaults', () => {
  const result = validateSettingsDocument({ events: { errorRate: { threshold: 2 }, cost: { budgets: { monthly: 500 } }, routes: [{ routeId: 'orders', latency: { quantile: 'p99' } }] } }, sections);
  assert.ok(result.ok);
  const events = result.document['events'] as unknown as ReturnType<typeof defaultEventSettings>;
  assert.deepEqual(events.errorRate, { ...defaultEventSettings().errorRate, threshold: 2 });
  assert.deepEqual(events.cost.budgets, { daily: null, monthly: 500 });
  assert.deepEqual(events.routes, [{ routeId: 'orders', latency: { quantile: 'p99' } }]);
});

test('every bad field is named', () => {
  const result = validateSettingsDocument(
    {
      events: {
        evaluationInterval: '10 seconds',
        errorRate: { threshold: 0, window: 'soon' },
        latency: { quantile: 'p50' },
        capacity: { persistence: 7 },
        routes: [{ routeId: '', errorRate: { minConfidence: 2 } }],
        surprise: true,
      },
    },
    sections,
  );
  assert.ok(!result.ok);
  const fields = result.errors.map((error) => error.field).sort();
  assert.deepEqual(fields, [
    'events.capacity.persistence',
    'events.errorRate.threshold',
    'events.errorRate.window',
    'events.evaluationInterval',
    'events.latency.quantile',
    'events.routes.0.errorRate.minConfidence',
    'events.routes.0.routeId',
    'events.surprise',
  ]);
});
