import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CounterHandle } from '../engine/ports';
import { expositionScratch, scheduleExpositionWarmUp, WARM_UP_ROUNDS } from './exposition-warm-up';
import { ExpositionWriter } from './exposition-writer';
import { PromMetrics } from './prom-metrics.adapter';
import { requestMetricsExposition } from './request-metrics-exposition';
import { RequestSeriesStore } from './request-series';
import { BUCKET_COUNT, bucketOf, SeriesFamily, SLOT } from './series-family';

/** A scrape's text without the process metrics (their values move with time). */
async function scrape(metrics: PromMetrics): Promise<string> {
  const { chunks, recycle } = await metrics.exposition();
  const parts: Buffer[] = [];
  for (let next = chunks.next(); next.done !== true; next = chunks.next()) {
    parts.push(Buffer.from(next.value));
    recycle(next.value);
  }
  return Buffer.concat(parts)
    .toString('utf8')
    .split('\n')
    .filter((line) => !/^(# (HELP|TYPE) )?(process_|nodejs_)/.test(line))
    .join('\n');
}

/** The same traffic, counters and gauge on a data plane's metrics; the cache-lookup handle. */
function feed(metrics: PromMetrics): CounterHandle {
  const lookups = metrics.counter({ name: 'gateway_cache_lookups_total', help: 'Cache lookups', labelNames: ['route', 'result'] });
  metrics.gauge({ name: 'gateway_circuit_breaker_state', help: 'state', labelNames: ['breaker', 'kind'] }, () => [{ labels: ['b1', 'route'], value: 1 }]);
  for (let i = 0; i < 500; i += 1) {
    metrics.observeRequest(`r-${i}`, `/p${i}/*`, i % 2 === 0 ? 'GET' : 'POST', [200, 404][i % 2] as number, (i % 40) * 7.25);
    if (i % 3 === 0) lookups.labels(`r-${i}`, 'hit').inc();
  }
  return lookups;
}

/** Counts calls of `name` on `target` until `restore`. */
function spy(target: object, name: string): { calls: () => number; restore: () => void } {
  const holder = target as Record<string, unknown>;
  const original = holder[name] as (...args: unknown[]) => unknown;
  let calls = 0;
  holder[name] = function (this: unknown, ...args: unknown[]) {
    calls += 1;
    return original.apply(this, args);
  };
  return { calls: () => calls, restore: () => void (holder[name] = original) };
}

/** The text of a family pair through the request-metrics render. */
function render(byPattern: SeriesFamily, byId: SeriesFamily): string {
  const out = new ExpositionWriter();
  const parts: Buffer[] = [];
  for (const chunk of requestMetricsExposition(byPattern, byId, out)) parts.push(Buffer.from(chunk));
  for (const chunk of out.finish()) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts).toString('utf8');
}

test("the warm-up renders a scrape's worth of scratch series and changes nothing in the served ones", async () => {
  const warmed = new PromMetrics();
  const cold = new PromMetrics();
  feed(warmed);
  feed(cold);
  const scratch = warmed.expositionScratch();
  let bytes = 0;
  for (let round = 0; round < WARM_UP_ROUNDS; round += 1) bytes += await warmed.warmUpRound(scratch);
  assert.ok(bytes > 500_000, `a round renders the request metrics of hundreds of routes (${bytes} bytes in all)`);
  const text = await scrape(warmed);
  assert.equal(text, await scrape(cold), 'the same text as without a warm-up');
  assert.doesNotMatch(text, /warm/, 'no scratch series in the served text');
  assert.match(text, /gateway_cache_lookups_total\{route="r-3",result="hit"\} 1\n/);
});

test('a warm-up round runs none of the functions the request path runs', async () => {
  const metrics = new PromMetrics();
  const lookups = feed(metrics);
  const scratch = metrics.expositionScratch();
  const bound = lookups.labels('r-0', 'hit');
  const watched = [
    spy(RequestSeriesStore.prototype, 'observe'),
    spy(SeriesFamily.prototype, 'slotFor'),
    spy(SeriesFamily.prototype, 'add'),
    spy(SeriesFamily.prototype, 'record'),
    // The policies' counter handle (deferred-counter.ts): its `labels` and the bound count's `inc`.
    spy(Object.getPrototypeOf(lookups) as object, 'labels'),
    spy(Object.getPrototypeOf(bound) as object, 'inc'),
  ];
  try {
    for (let round = 0; round < 2; round += 1) await metrics.warmUpRound(scratch);
    assert.deepEqual(
      watched.map((w) => w.calls()),
      watched.map(() => 0),
    );
    // The spies see the request path's calls (the check above could fail).
    metrics.observeRequest('r-1', '/p1/*', 'GET', 200, 1);
    lookups.labels('r-1', 'miss').inc();
    assert.deepEqual(
      watched.map((w) => w.calls() > 0),
      watched.map(() => true),
    );
  } finally {
    for (const w of watched) w.restore();
  }
});

test('a prepared family renders byte for byte what the same series recorded by the request path render', () => {
  const byPattern = new SeriesFamily();
  const byId = new SeriesFamily();
  const series: [string, number[]][] = [
    ['method="GET",route="/a/*",status="200"', [0.5, 7, 12.25]],
    ['method="POST",route="/é\\"q\\"/*",status="503"', [9000.5]],
    ['method="GET",route="/b/*",status="404"', [3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 60]],
  ];
  const prepared = (family: SeriesFamily): SeriesFamily => {
    const labels = series.map(([text]) => text);
    const ends = new Int32Array(labels.length);
    let end = 0;
    labels.forEach((text, i) => (ends[i] = end += Buffer.byteLength(text)));
    const values = new Float64Array(labels.length * SLOT);
    for (let slot = 0; slot < labels.length; slot += 1) {
      values[slot * SLOT] = family.count(slot);
      values[slot * SLOT + 1] = family.sumMs(slot);
      for (let bucket = 0; bucket < BUCKET_COUNT; bucket += 1) values[slot * SLOT + 2 + bucket] = family.bucket(slot, bucket);
    }
    return SeriesFamily.prepared(Buffer.from(labels.join('')), ends, values);
  };
  for (const [text, durations] of series) {
    for (const family of [byPattern, byId]) {
      const slot = family.slotFor(text);
      for (const duration of durations) family.record(slot, duration, bucketOf(duration));
    }
  }
  const expected = render(byPattern, byId);
  assert.match(expected, /route="\/é\\"q\\"\/\*",status="503"\} 1\n/);
  assert.equal(render(prepared(byPattern), prepared(byId)), expected);
});

test('the scratch series: every bucket, sums with fractions, counts of several digits, a counter for each declared one', () => {
  const scratch = expositionScratch([['route', 'result'], []]);
  const text = render(scratch.byPattern, scratch.byId);
  assert.match(text, /_bucket\{le="\+Inf",/);
  assert.match(text, /_sum\{[^}]*\} \d+\.\d+\n/);
  assert.match(text, /_count\{[^}]*\} \d\d\n/);
  assert.deepEqual(
    scratch.counters.map((c) => Object.keys(c.values[0]?.labels ?? {})),
    [['route', 'result'], []],
  );
});

test('the scheduled warm-up runs every round on timers and reports once; cancelled, it never runs', async () => {
  // The warm-up's timers are unref'd (they never keep a process alive): this one keeps the test's.
  const keepAlive = setInterval(() => undefined, 1000);
  let rounds = 0;
  const reported = await new Promise<number>((resolve) =>
    scheduleExpositionWarmUp(
      () => {
        rounds += 1;
        return Promise.resolve(10);
      },
      { delayMs: 0, gapMs: 0 },
      resolve,
    ),
  );
  assert.equal(reported, 10 * WARM_UP_ROUNDS);
  assert.equal(rounds, WARM_UP_ROUNDS);
  let ran = 0;
  const cancel = scheduleExpositionWarmUp(
    () => {
      ran += 1;
      return Promise.resolve(0);
    },
    { delayMs: 5, gapMs: 0 },
  );
  cancel();
  await new Promise((resolve) => setTimeout(resolve, 50));
  clearInterval(keepAlive);
  assert.equal(ran, 0);
});
