import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
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
