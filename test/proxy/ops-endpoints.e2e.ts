import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request, startGatewayProcess, startUpstream, type GatewayProcess, type LoopbackUpstream } from '@gateway/testing';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('operational endpoints', () => {
  let upstream: LoopbackUpstream;
  let gateway: GatewayProcess;

  before(async () => {
    upstream = await startUpstream();
    gateway = await startGatewayProcess({
      config: `
version: "1.0.0"
upstreams:
  - { name: main, url: "${upstream.origin}" }
routes:
  - { path: /api/*, upstream: main }
  - { id: orders, path: /orders/*, upstream: main }
  - id: lazy
    path: /lazy/*
    upstream: main
    rateLimit: { enabled: true, max: 1000, windowMs: 60000 }
    cache: { enabled: true, ttl: 60000 }
`,
    });
  });

  after(async () => {
    await gateway?.stop();
    await upstream?.close();
  });

  const get = (path: string, method = 'GET') => request(`${gateway.url}${path}`, { method });

  test('/version has exactly name, version, apiVersion, configVersion, node, uptime', async () => {
    const res = await get('/version');
    assert.equal(res.status, 200);
    const body = res.json<Record<string, unknown>>();
    assert.deepEqual(Object.keys(body).sort(), ['apiVersion', 'configVersion', 'name', 'node', 'uptime', 'version']);
    assert.equal(body.apiVersion, '1.0.0');
    assert.equal(body.configVersion, '1.0.0');
    assert.equal(body.node, process.version);
    assert.match(String(body.version), /^\d+\.\d+\.\d+/);
    assert.equal(typeof body.uptime, 'number');
  });

  test('/health and /health/live: {status, timestamp, version}', async () => {
    for (const path of ['/health', '/health/live']) {
      const res = await get(path);
      assert.equal(res.status, 200);
      const body = res.json<Record<string, unknown>>();
      assert.deepEqual(Object.keys(body).sort(), ['status', 'timestamp', 'version']);
      assert.equal(body.status, 'UP');
      assert.match(String(body.timestamp), ISO);
    }
  });

  test('/health/ready: {status, checks: {config, upstreams}, timestamp} and UP with a loaded config', async () => {
    const res = await get('/health/ready');
    assert.equal(res.status, 200);
    const body = res.json<{ status: string; checks: Record<string, string>; timestamp: string }>();
    assert.deepEqual(Object.keys(body).sort(), ['checks', 'status', 'timestamp']);
    assert.deepEqual(body.checks, { config: 'UP', upstreams: 'UP' });
    assert.equal(body.status, 'UP');
  });

  test('/health/serving: UP with a loaded config, so a Kubernetes readiness probe keeps the pod', async () => {
    const res = await get('/health/serving');
    assert.equal(res.status, 200);
    const body = res.json<Record<string, unknown>>();
    assert.deepEqual(Object.keys(body).sort(), ['status', 'timestamp']);
    assert.equal(body.status, 'UP');
  });

  test('/health/deep: uptime, circuitBreakers, per-target upstream state and memory with percentUsed as a decimal string', async () => {
    const res = await get('/health/deep');
    assert.equal(res.status, 200);
    const body = res.json<{ status: string; uptime: number; timestamp: string; circuitBreakers: object; upstreams: object; memory: Record<string, unknown> }>();
    assert.deepEqual(Object.keys(body).sort(), ['circuitBreakers', 'memory', 'status', 'timestamp', 'upstreams', 'uptime']);
    assert.deepEqual(body.circuitBreakers, {});
    assert.deepEqual(body.upstreams, {
      main: {
        algorithm: 'round-robin',
        endpoints: [{ index: 0, target: upstream.origin.slice('http://'.length), weight: 100, state: 'available', inFlight: 0, consecutiveFailures: 0, ejections: 0 }],
      },
    });
    assert.deepEqual(Object.keys(body.memory).sort(), ['heapTotal', 'heapUsed', 'percentUsed']);
    assert.equal(typeof body.memory.heapUsed, 'number');
    assert.match(String(body.memory.percentUsed), /^\d{1,3}\.\d{2}$/);
  });

  test('ops endpoints answer only GET and HEAD', async () => {
    assert.equal((await get('/health', 'POST')).status, 405);
    const head = await get('/version', 'HEAD');
    assert.equal(head.status, 200);
    assert.equal(head.body.length, 0);
  });

  test('/metrics exposes every metric of the spec with its type, labels and buckets', async () => {
    await get('/api/one');
    await get('/orders/7');
    await get('/no-such-route');
    const res = await get('/metrics');
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^text\/plain/);
    const text = res.text;
    const types: Record<string, string> = {
      http_requests_total: 'counter',
      http_request_duration_ms: 'histogram',
      process_cpu_user_seconds_total: 'counter',
      process_cpu_system_seconds_total: 'counter',
      process_resident_memory_bytes: 'gauge',
      process_heap_bytes: 'gauge',
      nodejs_eventloop_lag_seconds: 'gauge',
      nodejs_active_handles_total: 'gauge',
      nodejs_active_requests_total: 'gauge',
      gateway_requests_total: 'counter',
      gateway_request_duration_seconds: 'histogram',
      gateway_rate_limit_hits_total: 'counter',
      gateway_config_reloads_total: 'counter',
    };
    for (const [name, type] of Object.entries(types)) assert.match(text, new RegExp(`^# TYPE ${name} ${type}$`, 'm'), name);

    // Decision 18: path patterns on http_*, route ids on gateway_*, `unmatched` for no route.
    assert.match(text, /^http_requests_total\{method="GET",route="\/api\/\*",status="200"\} 1$/m);
    assert.match(text, /^http_requests_total\{method="GET",route="\/orders\/\*",status="200"\} 1$/m);
    assert.match(text, /^http_requests_total\{method="GET",route="unmatched",status="404"\} 1$/m);
    assert.match(text, /^gateway_requests_total\{route="orders",method="GET",status="200"\} 1$/m);
    assert.match(text, /^gateway_requests_total\{route="unmatched",method="GET",status="404"\} 1$/m);
    assert.doesNotMatch(text, /no-such-route/);
    const buckets = [...text.matchAll(/^http_request_duration_ms_bucket\{le="([^"]+)",method="GET",route="\/api\/\*",status="200"\}/gm)].map((m) => m[1]);
    assert.deepEqual(buckets, ['5', '10', '25', '50', '100', '250', '500', '1000', '2500', '5000', '+Inf']);
    // Ops endpoints are not proxied traffic.
    assert.doesNotMatch(text, /route="\/health"/);
  });

  test('a route has no /metrics series until its first request (10,000 routes must not mean 10,000 x 26 idle lines)', async () => {
    const before = (await get('/metrics')).text;
    assert.doesNotMatch(before, /route="(lazy|\/lazy\/\*)"/, 'no series of any metric for a route nobody called');
    assert.equal((await get('/lazy/1')).status, 200);
    const after = (await get('/metrics')).text;
    assert.match(after, /^gateway_requests_total\{route="lazy",method="GET",status="200"\} 1$/m);
    assert.match(after, /^http_requests_total\{method="GET",route="\/lazy\/\*",status="200"\} 1$/m);
    assert.equal([...after.matchAll(/^gateway_request_duration_seconds_bucket\{le="[^"]+",route="lazy",/gm)].length, 11);
  });
});
