import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { gunzipSync } from 'node:zlib';
import {
  manyRoutesConfig,
  parsePrometheusText,
  prometheusSampleValues,
  request,
  startGatewayProcess,
  startUpstream,
  type GatewayProcess,
  type LoopbackUpstream,
  type ManyRoutesRoute,
} from '@gateway/testing';

/** Enough routes that a scrape is megabytes and many chunks (streaming and backpressure matter). */
const ROUTES = 1500;
const CONCURRENCY = 16;
const REQUEST_FAMILIES = ['http_requests_total', 'http_request_duration_ms', 'gateway_requests_total', 'gateway_request_duration_seconds'];

/** The generated table plus one route whose pattern a reload changes. */
function config(origin: string, movingPath: string): { yaml: string; routes: readonly ManyRoutesRoute[] } {
  const generated = manyRoutesConfig({ count: ROUTES, upstreamOrigin: origin });
  return { yaml: `${generated.yaml}  - { id: moving, path: "${movingPath}", upstream: "${origin}" }\n`, routes: generated.routes };
}

describe('/metrics exposition at a large table', () => {
  let upstream: LoopbackUpstream;
  let gateway: GatewayProcess;
  let routes: readonly ManyRoutesRoute[];
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

  before(async () => {
    upstream = await startUpstream({ handler: (_req, res) => res.end('ok') });
    const first = config(upstream.origin, '/before/*');
    routes = first.routes;
    // Debug: the warm-up of the /metrics render says when it is done (its test below).
    gateway = await startGatewayProcess({ config: first.yaml, env: { LOG_LEVEL: 'debug' } });
    for (let i = 0; i < routes.length; i += CONCURRENCY) {
      const answers = await Promise.all(routes.slice(i, i + CONCURRENCY).map((r) => request(`${gateway.url}${r.requestPath}`, { agent })));
      assert.deepEqual(answers.filter((a) => a.status !== 200).map((a) => a.status), []);
    }
    for (const method of ['GET', 'GET', 'DELETE']) assert.equal((await request(`${gateway.url}/before/1`, { method, agent })).status, 200);
  });

  after(async () => {
    agent.destroy();
    await gateway?.stop();
    await upstream?.close();
  });

  const scrape = (headers: http.OutgoingHttpHeaders = {}) => request(`${gateway.url}/metrics`, { headers, agent, timeoutMs: 30_000 });

  test('every line of a multi-megabyte scrape is valid text format; every family, every series, cumulative buckets', { timeout: 60_000 }, async () => {
    const res = await scrape();
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    assert.equal(res.headers['transfer-encoding'], 'chunked', 'streamed, not built whole');
    assert.ok(res.body.length > 2_000_000, `${res.body.length} bytes`);
    const families = parsePrometheusText(res.text);
    for (const name of REQUEST_FAMILIES) assert.ok(families.has(name), name);
    assert.equal(families.get('gateway_requests_total')?.samples.length, ROUTES + 2, 'one series per route, plus the moving route\'s GET and DELETE');
    assert.equal(families.get('http_request_duration_ms')?.samples.length, (ROUTES + 2) * 13);
    assert.equal(families.get('gateway_circuit_breaker_state')?.type, 'gauge');
    assert.ok((families.get('gateway_circuit_breaker_state')?.samples.length ?? 0) > 100, 'a breaker per route with one');
    const values = prometheusSampleValues(families);
    for (const r of routes) assert.equal(values.get(`gateway_requests_total{method="GET",route="${r.id}",status="200"}`), 1, r.id);
    assert.equal(values.get('http_requests_total{method="GET",route="/before/*",status="200"}'), 2);
  });

  test('the warm-up of the render after start adds no series: the scrape after it has only the served ones', { timeout: 60_000 }, async () => {
    const line = await gateway.waitForOutput('metrics render warmed up', 30_000);
    assert.ok(Number(JSON.parse(line).bytes) > 1_000_000, line);
    const res = await scrape();
    assert.equal(res.status, 200);
    assert.doesNotMatch(res.text, /warm/);
    const values = prometheusSampleValues(parsePrometheusText(res.text));
    const routeSeries = [...values.keys()].filter((series) => series.startsWith('gateway_requests_total{'));
    // Every generated route once, the moving route's three requests in two methods.
    assert.equal(routeSeries.length, ROUTES + 2);
  });

  test('with Accept-Encoding: gzip the same exposition comes compressed', { timeout: 60_000 }, async () => {
    const plain = await scrape();
    const compressed = await scrape({ 'accept-encoding': 'gzip' });
    assert.equal(compressed.status, 200);
    assert.equal(compressed.headers['content-encoding'], 'gzip');
    assert.match(String(compressed.headers.vary), /accept-encoding/i);
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.ok(compressed.body.length * 5 < plain.body.length, `${compressed.body.length} gzip bytes for ${plain.body.length}`);
    const unzipped = prometheusSampleValues(parsePrometheusText(gunzipSync(compressed.body).toString('utf8')));
    const direct = prometheusSampleValues(parsePrometheusText(plain.text));
    const requestSeries = (values: Map<string, number>) => [...values].filter(([series]) => /^(http|gateway)_request/.test(series));
    // The request series did not move between the two scrapes (no traffic): the same values, byte for byte parsed.
    assert.deepEqual(requestSeries(unzipped), requestSeries(direct));
  });

  test('a scraper that stops reading holds the scrape back without stalling traffic, and then gets all of it', { timeout: 60_000 }, async () => {
    const slow = await new Promise<http.IncomingMessage>((resolve, reject) => {
      http.get(`${gateway.url}/metrics`, (res) => {
        res.pause();
        resolve(res);
      }).on('error', reject);
    });
    // While the scrape waits for its reader, proxied requests and probes are answered.
    assert.equal((await request(`${gateway.url}${(routes[0] as ManyRoutesRoute).requestPath}`)).status, 200);
    assert.equal((await request(`${gateway.url}/health`)).status, 200);
    const chunks: Buffer[] = [];
    slow.on('data', (chunk: Buffer) => chunks.push(chunk));
    await new Promise<void>((resolve, reject) => {
      slow.on('end', resolve);
      slow.on('error', reject);
      slow.resume();
    });
    const families = parsePrometheusText(Buffer.concat(chunks).toString('utf8'));
    assert.equal(families.get('gateway_requests_total')?.samples.length, ROUTES + 2);
  });

  test('a scraper that hangs up half way costs nothing: the next scrape is whole', { timeout: 60_000 }, async () => {
    await new Promise<void>((resolve, reject) => {
      const req = http.get(`${gateway.url}/metrics`, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', (error) => (req.destroyed ? resolve() : reject(error)));
    });
    const res = await scrape();
    assert.equal(parsePrometheusText(res.text).get('gateway_requests_total')?.samples.length, ROUTES + 2);
    assert.equal((await request(`${gateway.url}/metrics`, { method: 'HEAD' })).body.length, 0);
  });

  test('counters stay monotonic across a reload that changes a route\'s pattern', { timeout: 60_000 }, async () => {
    const before = prometheusSampleValues(parsePrometheusText((await scrape()).text));
    const reloadsBefore = before.get('gateway_config_reloads_total{result="success"}') ?? 0;
    gateway.writeConfig(config(upstream.origin, '/after/*').yaml);
    gateway.signal('SIGHUP');
    let after = before;
    for (let attempt = 0; attempt < 100 && (after.get('gateway_config_reloads_total{result="success"}') ?? 0) <= reloadsBefore; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      after = prometheusSampleValues(parsePrometheusText((await scrape()).text));
    }
    assert.equal(after.get('gateway_config_reloads_total{result="success"}'), reloadsBefore + 1, 'the reload was applied');
    assert.equal((await request(`${gateway.url}/after/1`)).status, 200);
    assert.equal((await request(`${gateway.url}/before/1`)).status, 404);
    after = prometheusSampleValues(parsePrometheusText((await scrape()).text));
    for (const [series, value] of before) {
      if (!/^(http|gateway)_request/.test(series)) continue;
      const later = after.get(series);
      assert.ok(later !== undefined && later >= value, `${series}: ${value} before the reload, ${later} after`);
    }
    assert.equal(after.get('http_requests_total{method="GET",route="/before/*",status="200"}'), 2, 'the old pattern keeps its count');
    assert.equal(after.get('http_requests_total{method="GET",route="/after/*",status="200"}'), 1);
    assert.equal(after.get('gateway_requests_total{method="GET",route="moving",status="200"}'), 3, 'the route id counts on');
  });
});
