import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Gauge, Registry } from 'prom-client';
import { ExpositionWriter } from './exposition-writer';
import { gaugeExposition, type GaugeLinePrefixes } from './gauge-exposition';

const DEFINITION = { name: 'test_breaker_state', help: 'Breaker state\nwith a \\ in its help', labelNames: ['breaker', 'kind'] };

function written(readings: readonly { labels: readonly string[]; value: number }[], prefixes: GaugeLinePrefixes): string {
  const out = new ExpositionWriter();
  const chunks = [...gaugeExposition(out, DEFINITION, readings, prefixes), ...out.finish()];
  return Buffer.concat(chunks).toString('utf8');
}

/** prom-client's text for the same readings: the reference the written bytes must equal. */
async function reference(readings: readonly { labels: readonly string[]; value: number }[]): Promise<string> {
  const registry = new Registry();
  const gauge = new Gauge({ ...DEFINITION, labelNames: [...DEFINITION.labelNames], registers: [registry] });
  for (const r of readings) gauge.labels(...(r.labels as string[])).set(r.value);
  return registry.metrics();
}

test('line prefixes kept by labels array: every scrape is byte for byte what prom-client writes, after values and kinds change', async () => {
  const prefixes: GaugeLinePrefixes = new WeakMap();
  // Stable arrays (as the breaker registry yields them), escapes and non-ASCII among them.
  const labels = [['route:a', 'route'], ['up"stream\\b\nc', 'upstream'], ['ü-route', 'route']];
  const values = [[0, 1, 2], [2, 0.5, -1], [1, 1e21, 0]];
  for (const scrape of values) {
    const readings = labels.map((l, i) => ({ labels: l, value: scrape[i] as number }));
    assert.equal(written(readings, prefixes), await reference(readings));
  }
  // A breaker whose kind changed gets a new array (breaker-registry.ts): its line follows.
  labels[0] = ['route:a', 'upstream'];
  const readings = labels.map((l) => ({ labels: l, value: 1 }));
  assert.equal(written(readings, prefixes), await reference(readings));
  // Fresh arrays every scrape (the upstream target gauges) write the same text.
  const fresh = readings.map((r) => ({ labels: [...r.labels], value: r.value }));
  assert.equal(written(fresh, prefixes), await reference(fresh));
});
