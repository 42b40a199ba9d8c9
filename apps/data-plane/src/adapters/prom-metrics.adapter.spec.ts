import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePrometheusText, prometheusSampleValues } from '@gateway/testing';
import { PromMetrics } from './prom-metrics.adapter';

/** One whole scrape, with the number of chunks it came in. */
async function scrape(metrics: PromMetrics): Promise<{ text: string; chunks: number }> {
  const { chunks } = await metrics.exposition();
  const parts: Uint8Array[] = [];
  for (let next = chunks.next(); next.done !== true; next = chunks.next()) parts.push(next.value);
  return { text: Buffer.concat(parts).toString('utf8'), chunks: parts.length };
}

const DURATIONS = [0.2, 5, 5.5, 10, 24, 50, 99, 250, 400, 1000, 2000, 5000, 5001, 90_000];

test('a scrape of thousands of series is valid text format, family by family, with cumulative buckets and exact counts', async () => {
  const metrics = new PromMetrics();
  const expected = new Map<string, number>();
  for (let i = 0; i < 3000; i += 1) {
    const status = [200, 404, 503][i % 3] as number;
    const method = i % 5 === 0 ? 'POST' : 'GET';
    const times = (i % 4) + 1;
    for (let k = 0; k < times; k += 1) metrics.observeRequest(`r-${i}`, `/p${i}/*`, method, status, DURATIONS[(i + k) % DURATIONS.length] as number);
    expected.set(`gateway_requests_total{method="${method}",route="r-${i}",status="${status}"}`, times);
  }
  // Labels that need escaping (JSON.stringify below escapes them the same way), a pattern shared by two ids, and an id whose pattern changed (a reload).
  metrics.observeRequest('we"ird\\id\nx', '/ünï/"q"/*', 'GET', 200, 1);
  metrics.observeRequest('shared-a', '/shared/*', 'GET', 200, 1);
  metrics.observeRequest('shared-b', '/shared/*', 'GET', 200, 1);
  metrics.observeRequest('moved', '/before/*', 'GET', 200, 1);
  metrics.observeRequest('moved', '/after/*', 'GET', 200, 1);
  metrics.gauge({ name: 'test_gauge', help: 'A gauge with \\ and a\nnewline in its help', labelNames: ['name'] }, () => [
    { labels: ['a"b'], value: 2 },
    { labels: ['c'], value: 0.25 },
  ]);

  const { text, chunks } = await scrape(metrics);
  assert.ok(chunks > 10, `streamed in ${chunks} chunks`);
  const families = parsePrometheusText(text);
  assert.equal(families.get('http_requests_total')?.type, 'counter');
  assert.equal(families.get('http_request_duration_ms')?.type, 'histogram');
  assert.equal(families.get('gateway_requests_total')?.type, 'counter');
  assert.equal(families.get('gateway_request_duration_seconds')?.type, 'histogram');
  assert.equal(families.get('test_gauge')?.help, 'A gauge with \\ and a\nnewline in its help');
  assert.equal(families.get('process_cpu_user_seconds_total')?.type, 'counter', "prom-client's part is there too");

  const values = prometheusSampleValues(families);
  for (const [series, count] of expected) assert.equal(values.get(series), count, series);
  assert.equal(families.get('gateway_requests_total')?.samples.length, 3000 + 4);
  assert.equal(values.get(`gateway_requests_total{method="GET",route=${JSON.stringify('we"ird\\id\nx')},status="200"}`), 1);
  assert.equal(values.get(`http_requests_total{method="GET",route=${JSON.stringify('/ünï/"q"/*')},status="200"}`), 1);
  assert.equal(values.get('http_requests_total{method="GET",route="/shared/*",status="200"}'), 2);
  assert.equal(values.get('gateway_requests_total{method="GET",route="moved",status="200"}'), 2);
  assert.equal(values.get('http_requests_total{method="GET",route="/before/*",status="200"}'), 1);
  assert.equal(values.get(`test_gauge{name=${JSON.stringify('a"b')}}`), 2);
  assert.equal(values.get('test_gauge{name="c"}'), 0.25);

  // Buckets of one known series: r-1 (GET 404, two requests of 5 and 5.5 ms).
  const buckets = (families.get('http_request_duration_ms')?.samples ?? [])
    .filter((s) => s.name === 'http_request_duration_ms_bucket' && s.labels.route === '/p1/*')
    .map((s) => [s.labels.le, s.value]);
  assert.deepEqual(buckets, [['5', 1], ['10', 2], ['25', 2], ['50', 2], ['100', 2], ['250', 2], ['500', 2], ['1000', 2], ['2500', 2], ['5000', 2], ['+Inf', 2]]);
  assert.equal(values.get('gateway_request_duration_seconds_sum{method="GET",route="r-1",status="404"}'), 10.5 * (1 / 1000));
  const le = (families.get('gateway_request_duration_seconds')?.samples ?? []).filter((s) => s.labels.route === 'r-1' && s.labels.le !== undefined).map((s) => s.labels.le);
  assert.deepEqual(le, ['0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '+Inf']);
});

test('counters only grow from one scrape to the next, and series created between scrapes appear in the next', async () => {
  const metrics = new PromMetrics();
  for (let i = 0; i < 500; i += 1) metrics.observeRequest(`r-${i}`, `/p${i}/*`, 'GET', 200, i);
  const first = prometheusSampleValues(parsePrometheusText((await scrape(metrics)).text));
  for (let i = 250; i < 750; i += 1) metrics.observeRequest(`r-${i}`, i < 500 ? `/p${i}/*` : `/q${i}/*`, 'GET', 200, i);
  const second = prometheusSampleValues(parsePrometheusText((await scrape(metrics)).text));
  for (const [series, value] of first) {
    if (!/^(http|gateway)_request/.test(series)) continue;
    const later = second.get(series);
    assert.ok(later !== undefined && later >= value, `${series}: ${value} then ${later}`);
  }
  assert.equal(second.get('gateway_requests_total{method="GET",route="r-300",status="200"}'), 2);
  assert.equal(second.get('gateway_requests_total{method="GET",route="r-700",status="200"}'), 1);
  assert.equal(first.get('gateway_requests_total{method="GET",route="r-700",status="200"}'), undefined);
});

test('a scrape that is abandoned half way leaves the next one whole', async () => {
  const metrics = new PromMetrics();
  for (let i = 0; i < 2000; i += 1) metrics.observeRequest(`r-${i}`, `/p${i}/*`, 'GET', 200, 1);
  const { chunks } = await metrics.exposition();
  chunks.next();
  chunks.return?.();
  assert.equal(chunks.next().done, true);
  const again = parsePrometheusText((await scrape(metrics)).text);
  assert.equal(again.get('gateway_requests_total')?.samples.length, 2000);
});
