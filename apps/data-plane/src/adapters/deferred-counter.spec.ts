import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Counter, Registry } from 'prom-client';
import { countsOf, deferredCounter } from './deferred-counter';

const DEFINITION = { name: 'test_outcomes_total', help: 'outcomes', labelNames: ['target', 'outcome'] };

test('bound counters count in numbers and prom-client has every increment when it collects, once', async () => {
  const registry = new Registry();
  const counts = countsOf(deferredCounter(DEFINITION, registry));
  const success = counts.labels('a:80', 'success');
  // Binding the same labels again shares the count (a route compiled twice, a reload).
  const again = counts.labels('a:80', 'success');
  const failure = counts.labels('a:80', 'failure');
  success.inc();
  again.inc();
  failure.inc();
  let text = await registry.metrics();
  assert.match(text, /test_outcomes_total\{target="a:80",outcome="success"\} 2\n/);
  assert.match(text, /test_outcomes_total\{target="a:80",outcome="failure"\} 1\n/);
  // A second scrape adds only what came since the first.
  success.inc();
  text = await registry.metrics();
  assert.match(text, /test_outcomes_total\{target="a:80",outcome="success"\} 3\n/);
  assert.match(text, /test_outcomes_total\{target="a:80",outcome="failure"\} 1\n/);
  // Reading the metric itself (as tests and the JSON API do) collects as well.
  counts.labels('b:80', 'success').inc();
  const values = (await registry.getSingleMetric(DEFINITION.name)?.get())?.values ?? [];
  assert.deepEqual(
    values.map((v) => [v.labels['target'], v.labels['outcome'], v.value]),
    [
      ['a:80', 'success', 3],
      ['a:80', 'failure', 1],
      ['b:80', 'success', 1],
    ],
  );
});

test('a label set never incremented has no series', async () => {
  const registry = new Registry();
  countsOf(deferredCounter(DEFINITION, registry)).labels('c:80', 'success');
  assert.doesNotMatch(await registry.metrics(), /c:80/);
});

test('binding the wrong number of labels throws at once, not at the scrape', () => {
  const registry = new Registry();
  assert.throws(() => countsOf(deferredCounter(DEFINITION, registry)).labels('only-one'));
});

test('after many flushes, a reset and a removed series, the text is byte for byte what a plain prom-client counter gives', async () => {
  // The flush adds to prom-client's value objects directly after a label set's first flush; a plain
  // Counter given the same increments through its public API is the reference.
  const deferredRegistry = new Registry();
  const plainRegistry = new Registry();
  const deferred = deferredCounter(DEFINITION, deferredRegistry);
  const counts = countsOf(deferred);
  const plain = new Counter({ ...DEFINITION, labelNames: [...DEFINITION.labelNames], registers: [plainRegistry] });
  const labelSets = [['a:80', 'success'], ['a:80', 'failure'], ['b"\\\n:80', 'success'], ['ü:80', 'hit']] as const;
  const bound = labelSets.map(([t, o]) => counts.labels(t, o));
  let seed = 7;
  const next = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648);
  for (let scrape = 0; scrape < 12; scrape += 1) {
    if (scrape === 5) {
      // A reset empties prom-client's map, between scrapes (its values start again from 0).
      deferredRegistry.resetMetrics();
      plainRegistry.resetMetrics();
    }
    if (scrape === 8) {
      deferred.remove('a:80', 'failure');
      plain.remove('a:80', 'failure');
    }
    for (let i = 0; i < 40; i += 1) {
      const k = next() % labelSets.length;
      if (next() % 3 === 0) continue;
      (bound[k] as { inc(): void }).inc();
      const [t, o] = labelSets[k] as readonly [string, string];
      plain.labels(t, o).inc();
    }
    assert.equal(await deferredRegistry.metrics(), await plainRegistry.metrics(), `scrape ${scrape}`);
  }
});
