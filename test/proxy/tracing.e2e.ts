import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { refusedPort, request, startGatewayProcess, startOtlpCollector, startUpstream, type GatewayProcess, type LoopbackUpstream, type OtlpCollector } from '@gateway/testing';

/*
 * Tracing end to end (issue 18, docs/tracing.md): W3C traceparent and tracestate through a data
 * plane to a loopback upstream, spans exported over OTLP/HTTP to a loopback collector, sampling at
 * 100 % and 0 %, the access log line, and tracing off by default.
 */

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-(0[01])$/;
const COLLECTOR_TOKEN = 'Bearer e2e-collector-token-5f1c';

function traceparentSeen(upstream: LoopbackUpstream, path: string): { traceId: string; spanId: string; flags: string; tracestate: string | undefined } {
  const seen = upstream.requests.filter((r) => r.url === path).at(-1);
  assert.ok(seen, `the upstream saw ${path}`);
  const match = TRACEPARENT.exec(String(seen.headers['traceparent']));
  assert.ok(match, `a valid traceparent upstream: ${String(seen.headers['traceparent'])}`);
  return { traceId: match[1] as string, spanId: match[2] as string, flags: match[3] as string, tracestate: seen.headers['tracestate'] as string | undefined };
}

/** The gateway's JSON log lines whose message is `request` (the access log). */
function accessLines(gateway: GatewayProcess): Array<Record<string, unknown>> {
  return gateway.output.flatMap((line) => {
    try {
      const parsed = JSON.parse(line) as Record<string, unknown>;
      return parsed['msg'] === 'request' ? [parsed] : [];
    } catch {
      return [];
    }
  });
}

async function metricValue(gateway: GatewayProcess, series: string): Promise<number> {
  const text = (await request(`${gateway.url}/metrics`)).text;
  const line = text.split('\n').find((l) => l.startsWith(series));
  return line === undefined ? 0 : Number(line.slice(series.length).trim());
}

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('tracing: W3C trace context, OTLP export, access log', () => {
  let upstream: LoopbackUpstream;
  let collector: OtlpCollector;
  let failing: OtlpCollector;
  let sampled: GatewayProcess;
  let unsampled: GatewayProcess;
  let off: GatewayProcess;

  before(async () => {
    upstream = await startUpstream();
    collector = await startOtlpCollector();
    failing = await startOtlpCollector();
    failing.answerWith(400);
    const dead = await refusedPort();
    const routes = `
routes:
  - { id: api, path: /api/*, upstream: "${upstream.origin}", stripPath: false }
  - { id: dead, path: /dead/*, upstream: "http://127.0.0.1:${dead}", timeout: { connect: 2000, request: 5000 } }
`;
    [sampled, unsampled, off] = await Promise.all([
      startGatewayProcess({
        env: { E2E_OTLP_TOKEN: COLLECTOR_TOKEN },
        config: `
version: "1.0.0"
proxy:
  accessLog: { enabled: true }
  tracing:
    enabled: true
    samplingRatio: 1
    otlp: { enabled: true, endpoint: "${collector.endpoint}", headersFromEnv: { authorization: E2E_OTLP_TOKEN }, serviceName: e2e-gateway, scheduledDelay: 20 }
${routes}`,
      }),
      startGatewayProcess({
        config: `
version: "1.0.0"
proxy:
  tracing:
    enabled: true
    samplingRatio: 0
    otlp: { enabled: true, endpoint: "${failing.endpoint}", scheduledDelay: 20 }
${routes}`,
      }),
      startGatewayProcess({ config: `version: "1.0.0"\n${routes}` }),
    ]);
  });

  after(async () => {
    await Promise.all([sampled?.stop(), unsampled?.stop(), off?.stop()]);
    await Promise.all([upstream?.close(), collector?.close(), failing?.close()]);
  });

  test('a sampled caller: the upstream gets its trace with the gateway span as parent; the collector gets that span', async () => {
    const res = await request(`${sampled.url}/api/continued?secret=1`, { headers: { traceparent: `00-${TRACE}-${PARENT}-01`, tracestate: 'rojo=00f067aa0ba902b7, BAD KEY=x,congo=t61rcWkgMzE' } });
    assert.equal(res.status, 200);
    const upstreamSaw = traceparentSeen(upstream, '/api/continued?secret=1');
    assert.equal(upstreamSaw.traceId, TRACE);
    assert.notEqual(upstreamSaw.spanId, PARENT, 'a new span id for the gateway hop');
    assert.equal(upstreamSaw.flags, '01');
    assert.equal(upstreamSaw.tracestate, 'rojo=00f067aa0ba902b7,congo=t61rcWkgMzE');

    const span = await collector.waitForTrace(TRACE);
    assert.equal(span.spanId, upstreamSaw.spanId);
    assert.equal(span.parentSpanId, PARENT);
    assert.equal(span.kind, 2, 'SERVER');
    assert.equal(span.name, 'GET /api/*');
    assert.equal(span.statusCode, 0);
    assert.equal(span.attributes['http.request.method'], 'GET');
    assert.equal(span.attributes['http.route'], '/api/*');
    assert.equal(span.attributes['url.path'], '/api/continued');
    assert.equal(span.attributes['http.response.status_code'], 200);
    assert.equal(span.attributes['gateway.route.id'], 'api');
    assert.equal(span.attributes['gateway.upstream'], upstream.origin);
    assert.equal(span.attributes['gateway.correlation_id'], res.headers['x-correlation-id']);
    assert.equal(span.attributes['gateway.upstream.attempts'], undefined, 'one attempt: no attempts attribute');
    assert.deepEqual(Object.keys(span.attributes).sort(), [
      'client.address',
      'gateway.correlation_id',
      'gateway.route.id',
      'gateway.upstream',
      'http.request.method',
      'http.response.status_code',
      'http.route',
      'url.path',
      'url.scheme',
    ]);
    assert.equal(span.resource['service.name'], 'e2e-gateway');
    assert.ok(BigInt(span.endTimeUnixNano) >= BigInt(span.startTimeUnixNano));
    assert.equal(collector.exportHeaders.at(-1)?.['authorization'], COLLECTOR_TOKEN);
    assert.ok(!sampled.output.some((line) => line.includes(COLLECTOR_TOKEN)), 'the collector credentials are never logged');
  });

  test('no or an invalid traceparent: the gateway starts a trace (100 % sampling) and the collector gets a root span', async () => {
    for (const [path, headers] of [
      ['/api/fresh', {}],
      ['/api/invalid', { traceparent: `00-${TRACE.toUpperCase()}-${PARENT}-01`, tracestate: 'rojo=1' }],
    ] as const) {
      assert.equal((await request(`${sampled.url}${path}`, { headers })).status, 200);
      const upstreamSaw = traceparentSeen(upstream, path);
      assert.notEqual(upstreamSaw.traceId, TRACE);
      assert.equal(upstreamSaw.flags, '01');
      assert.equal(upstreamSaw.tracestate, undefined, 'no tracestate for a trace the gateway started');
      const span = await collector.waitForTrace(upstreamSaw.traceId);
      assert.equal(span.spanId, upstreamSaw.spanId);
      assert.equal(span.parentSpanId, '');
    }
  });

  test('an upstream failure is an error span; an unsampled caller is honoured and exported nowhere', async () => {
    const errorTrace = 'ab'.repeat(16);
    assert.equal((await request(`${sampled.url}/dead/x`, { headers: { traceparent: `00-${errorTrace}-${PARENT}-01` } })).status, 502);
    const errorSpan = await collector.waitForTrace(errorTrace);
    assert.equal(errorSpan.statusCode, 2, 'ERROR');
    assert.equal(errorSpan.attributes['http.response.status_code'], 502);
    assert.equal(errorSpan.attributes['error.type'], 'UPSTREAM_ERROR');
    assert.ok(Number(errorSpan.attributes['gateway.upstream.attempts']) > 1, 'the retried request carries its attempts (retries are on by default)');

    const quietTrace = 'cd'.repeat(16);
    assert.equal((await request(`${sampled.url}/api/quiet`, { headers: { traceparent: `00-${quietTrace}-${PARENT}-00` } })).status, 200);
    assert.equal(traceparentSeen(upstream, '/api/quiet').flags, '00');
    // Spans leave in request order within a batch; a later sampled request's span marks "after it".
    const markerTrace = 'ef'.repeat(16);
    await request(`${sampled.url}/api/marker`, { headers: { traceparent: `00-${markerTrace}-${PARENT}-01` } });
    await collector.waitForTrace(markerTrace);
    assert.ok(!collector.spans.some((s) => s.traceId === quietTrace));
  });

  test('the access log: one JSON line per request with ids, route, status, bytes and the path without its query', async () => {
    await until(() => accessLines(sampled).some((l) => l['path'] === '/api/continued'), 'the access log line');
    const line = accessLines(sampled).find((l) => l['path'] === '/api/continued') as Record<string, unknown>;
    assert.equal(line['level'], 30, 'info');
    assert.equal(line['traceId'], TRACE);
    assert.match(String(line['spanId']), /^[0-9a-f]{16}$/);
    assert.equal(line['routeId'], 'api');
    assert.equal(line['method'], 'GET');
    assert.equal(line['status'], 200);
    assert.equal(line['clientIp'], '127.0.0.1');
    assert.match(String(line['correlationId']), /^req-/);
    assert.ok(typeof line['durationMs'] === 'number');
    assert.ok(Number(line['bytesSent']) > 100, `bytesSent ${String(line['bytesSent'])}: the head and the echoed body`);
    assert.ok(!JSON.stringify(line).includes('secret=1'), 'no query string');
    // A request no route took is traced too (a trace started at 100 %): its line carries the ids.
    await request(`${sampled.url}/nowhere`);
    await until(() => accessLines(sampled).some((l) => l['path'] === '/nowhere' && l['status'] === 404 && /^[0-9a-f]{32}$/.test(String(l['traceId']))), 'the 404 line');
    // The gateway's own endpoints are not traffic: no line.
    await request(`${sampled.url}/health/live`);
    assert.ok(!accessLines(sampled).some((l) => String(l['path']).startsWith('/health')));
  });

  test('requests no route takes: a span named by the method and `unmatched` (never the path), traceparent rules as for routes', async () => {
    const unmatchedTrace = '9a'.repeat(16);
    const res = await request(`${sampled.url}/no/such/route/4711?q=1`, { method: 'DELETE', headers: { traceparent: `00-${unmatchedTrace}-${PARENT}-01` } });
    assert.equal(res.status, 404);
    const span = await collector.waitForTrace(unmatchedTrace);
    assert.equal(span.name, 'DELETE unmatched');
    assert.equal(span.parentSpanId, PARENT, "the caller's trace continued");
    assert.match(span.spanId, /^[0-9a-f]{16}$/);
    assert.notEqual(span.spanId, PARENT);
    assert.equal(span.kind, 2, 'SERVER');
    assert.equal(span.statusCode, 0, 'a 404 is the client\'s error, not the server span\'s');
    assert.equal(span.attributes['http.response.status_code'], 404);
    assert.equal(span.attributes['url.path'], '/no/such/route/4711');
    assert.equal(span.attributes['http.route'], undefined);
    assert.equal(span.attributes['gateway.route.id'], undefined);
    assert.equal(span.attributes['gateway.correlation_id'], res.headers['x-correlation-id']);

    // A malformed target is answered before any route too (400), and with no traceparent a trace starts.
    const before = collector.spans.length;
    assert.equal((await request(`${sampled.url}/a/%2e%2e%2fb`)).status, 400);
    await until(() => collector.spans.slice(before).some((s) => s.name === 'GET unmatched' && s.attributes['http.response.status_code'] === 400), 'the 400 span');
    const started = collector.spans.slice(before).find((s) => s.attributes['http.response.status_code'] === 400) as (typeof collector.spans)[number];
    assert.equal(started.parentSpanId, '');

    // An unsampled caller is honoured here as well.
    const quiet = '5b'.repeat(16);
    assert.equal((await request(`${sampled.url}/nowhere-quiet`, { headers: { traceparent: `00-${quiet}-${PARENT}-00` } })).status, 404);
    const marker = '6c'.repeat(16);
    await request(`${sampled.url}/nowhere-marker`, { headers: { traceparent: `00-${marker}-${PARENT}-01` } });
    await collector.waitForTrace(marker);
    assert.ok(!collector.spans.some((s) => s.traceId === quiet));
    // The gateway's own endpoints are never traced.
    await request(`${sampled.url}/metrics`, { headers: { traceparent: `00-${'7d'.repeat(16)}-${PARENT}-01` } });
    const marker2 = '8e'.repeat(16);
    await request(`${sampled.url}/nowhere-marker2`, { headers: { traceparent: `00-${marker2}-${PARENT}-01` } });
    await collector.waitForTrace(marker2);
    assert.ok(!collector.spans.some((s) => s.traceId === '7d'.repeat(16)));
  });

  test('0 % sampling: traces start unsampled and nothing is exported; a sampled caller still is, and a failed export is counted, never felt', async () => {
    for (let i = 0; i < 20; i += 1) assert.equal((await request(`${unsampled.url}/api/root-${i}`)).status, 200);
    for (let i = 0; i < 20; i += 1) assert.equal(traceparentSeen(upstream, `/api/root-${i}`).flags, '00');
    const marker = '12'.repeat(16);
    assert.equal((await request(`${unsampled.url}/api/sampled-parent`, { headers: { traceparent: `00-${marker}-${PARENT}-01` } })).status, 200);
    await failing.waitForTrace(marker);
    assert.deepEqual(failing.spans.map((s) => s.traceId), [marker], 'only the sampled caller was exported');
    await until(async () => (await metricValue(unsampled, 'gateway_tracing_spans_dropped_total{reason="export_failed"}')) === 1, 'the failed export counted');
    assert.equal(accessLines(unsampled).length, 0, 'the access log is off by default');
  });

  test('tracing off (the default): a caller\'s traceparent passes through untouched and none is made up', async () => {
    const given = `00-${TRACE}-${PARENT}-01`;
    await request(`${off.url}/api/off-given`, { headers: { traceparent: given, tracestate: 'rojo=1' } });
    const seen = upstream.requests.find((r) => r.url === '/api/off-given');
    assert.equal(seen?.headers['traceparent'], given);
    assert.equal(seen?.headers['tracestate'], 'rojo=1');
    await request(`${off.url}/api/off-none`);
    assert.equal(upstream.requests.find((r) => r.url === '/api/off-none')?.headers['traceparent'], undefined);
  });

  test('a collector header whose environment variable is not set stops the start with the field named, and no value logged', async () => {
    await assert.rejects(
      startGatewayProcess({
        env: { E2E_OTLP_TOKEN: undefined },
        config: `
version: "1.0.0"
proxy:
  tracing: { enabled: true, otlp: { enabled: true, endpoint: "${collector.endpoint}", headersFromEnv: { authorization: E2E_OTLP_TOKEN } } }
routes: []
`,
      }),
      /proxy\.tracing\.otlp\.headersFromEnv\.authorization.*E2E_OTLP_TOKEN/,
    );
  });
});
