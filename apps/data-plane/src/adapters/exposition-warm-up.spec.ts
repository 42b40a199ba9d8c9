import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ExpositionWarmUp, scheduleExpositionWarmUp, WARM_UP_ROUNDS } from './exposition-warm-up';
import { PromMetrics } from './prom-metrics.adapter';

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

/** The same traffic, counters and gauge on a data plane's metrics. */
function feed(metrics: PromMetrics): void {
  const lookups = metrics.counter({ name: 'gateway_cache_lookups_total', help: 'Cache lookups', labelNames: ['route', 'result'] });
  metrics.gauge({ name: 'gateway_circuit_breaker_state', help: 'state', labelNames: ['breaker', 'kind'] }, () => [{ labels: ['b1', 'route'], value: 1 }]);
  for (let i = 0; i < 500; i += 1) {
    metrics.observeRequest(`r-${i}`, `/p${i}/*`, i % 2 === 0 ? 'GET' : 'POST', [200, 404][i % 2] as number, (i % 40) * 7.25);
    if (i % 3 === 0) lookups.labels(`r-${i}`, 'hit').inc();
  }
}

test("the warm-up renders a scrape's worth of scratch series and changes nothing in the served ones", async () => {
  const warmed = new PromMetrics();
  const cold = new PromMetrics();
  feed(warmed);
  feed(cold);
  const warmUp = warmed.expositionWarmUp();
  let bytes = 0;
  for (let round = 0; round < WARM_UP_ROUNDS; round += 1) bytes += await warmUp.round();
  assert.ok(bytes > 500_000, `a round renders the request metrics of hundreds of routes (${bytes} bytes in all)`);
  const text = await scrape(warmed);
  assert.equal(text, await scrape(cold), 'the same text as without a warm-up');
  assert.doesNotMatch(text, /warm/, 'no scratch series in the served text');
  assert.match(text, /gateway_cache_lookups_total\{route="r-3",result="hit"\} 1\n/);
});

test('a scratch counter is made for each counter the policies declared, with its label names', async () => {
  const metrics = new PromMetrics();
  metrics.counter({ name: 'gateway_a_total', help: 'a', labelNames: ['upstream', 'target', 'outcome'] });
  metrics.counter({ name: 'gateway_b_total', help: 'b', labelNames: [] });
  // A warm-up of no counter at all still renders the rest.
  assert.ok((await new ExpositionWarmUp([]).round()) > 0);
  assert.ok((await metrics.expositionWarmUp().round()) > 0);
});

test('the scheduled warm-up runs every round on timers and reports once; cancelled, it never runs', async () => {
  // The warm-up's timers are unref'd (they never keep a process alive): this one keeps the test's.
  const keepAlive = setInterval(() => undefined, 1000);
  let rounds = 0;
  const reported = await new Promise<number>((resolve) =>
    scheduleExpositionWarmUp(
      () => {
        const warmUp = new ExpositionWarmUp([]);
        const round = warmUp.round.bind(warmUp);
        warmUp.round = () => {
          rounds += 1;
          return round();
        };
        return warmUp;
      },
      { delayMs: 0, gapMs: 0 },
      resolve,
    ),
  );
  assert.ok(reported > 0);
  assert.equal(rounds, WARM_UP_ROUNDS);
  let created = 0;
  const cancel = scheduleExpositionWarmUp(
    () => {
      created += 1;
      return new ExpositionWarmUp([]);
    },
    { delayMs: 5, gapMs: 0 },
  );
  cancel();
  await new Promise((resolve) => setTimeout(resolve, 50));
  clearInterval(keepAlive);
  assert.equal(created, 0);
});
