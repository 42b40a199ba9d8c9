import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { countsOf, deferredCounter } from './deferred-counter';
import { ExpositionWriter } from './exposition-writer';
import { registryLines, registryParts, type CounterLinePrefixes } from './registry-exposition';

/** The registry's text through registryParts/registryLines, with `own` written by us. */
async function ours(registry: Registry, own: ReadonlySet<object>, prefixes: CounterLinePrefixes): Promise<string> {
  const out = new ExpositionWriter();
  const parts: Uint8Array[] = [];
  for (const chunk of registryLines(out, await registryParts(registry, own), prefixes)) parts.push(Buffer.from(chunk));
  for (const chunk of out.finish()) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts).toString('utf8');
}

test("the counters we write come out byte for byte as prom-client's registry.metrics() writes them, scrape after scrape", async () => {
  const registry = new Registry();
  const own = new Set<object>();
  const prefixes: CounterLinePrefixes = new WeakMap();
  // prom-client's own families around ours, so order and separators are checked too.
  const gauge = new Gauge({ name: 'test_gauge', help: 'plain', labelNames: ['k'], registers: [registry] });
  gauge.labels('x').set(0.25);
  const lookups = deferredCounter({ name: 'test_lookups_total', help: 'help with \\ and a\nnewline', labelNames: ['route', 'result'] }, registry);
  own.add(lookups);
  new Histogram({ name: 'test_histogram', help: 'h', buckets: [1, 2], registers: [registry] }).observe(1.5);
  const empty = deferredCounter({ name: 'test_never_total', help: 'no series yet', labelNames: ['route'] }, registry);
  own.add(empty);
  // A counter without labels has its one series from the start (value 0), as in prom-client.
  const plain = new Counter({ name: 'test_plain_total', help: 'no labels', registers: [registry] });
  own.add(plain);
  const counts = countsOf(lookups);
  let escapedSeen = false;
  const routes = ['r1', 'we"ird\\id\nx', 'ünï/ç', 'r4'];
  for (let scrape = 0; scrape < 12; scrape += 1) {
    // Series appear in later scrapes too (their order is that of their first count).
    for (let i = 0; i <= scrape % routes.length; i += 1) for (let k = 0; k <= i; k += 1) counts.labels(routes[(i + scrape) % routes.length] as string, i % 2 === 0 ? 'hit' : 'miss').inc();
    if (scrape === 3) plain.inc(0.5);
    if (scrape === 4) plain.inc(2 ** 53 + 2);
    // A reset and a removed series: prom-client's values objects are new, so are their lines.
    if (scrape === 6) registry.resetMetrics();
    if (scrape === 9) lookups.remove('r1', 'hit');
    const text = await ours(registry, own, prefixes);
    const expected = await registry.metrics();
    assert.equal(text, expected, `scrape ${scrape}`);
    escapedSeen ||= text.includes('test_lookups_total{route="we\\"ird\\\\id\\nx",');
  }
  assert.ok(escapedSeen, 'the series with escapes was written');
});

test('an empty registry is one newline, as prom-client has it', async () => {
  const registry = new Registry();
  assert.equal(await ours(registry, new Set(), new WeakMap()), await registry.metrics());
});
