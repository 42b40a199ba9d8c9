import type http from 'node:http';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { refusedPort, request, startGatewayProcess, startUpstream, type ClientResponse, type GatewayProcess, type LoopbackUpstream } from '@gateway/testing';
import { load, tally, until } from './balancing-fixtures';

interface DeepEndpoint {
  index: number;
  target: string;
  state: string;
  ejections: number;
}

describe('several targets per upstream (issue 18)', () => {
  const named: LoopbackUpstream[] = [];
  let slow: LoopbackUpstream;
  let flaky: LoopbackUpstream;
  let flakyBroken = true;
  let sick: LoopbackUpstream;
  let sickStatus = 200;
  let gateway: GatewayProcess;
  let dead: number;

  /** What `/ready` (the active check of the `checked` upstream) answers, per upstream name; default 200. */
  const readyStatus = new Map<string, number>();
  const upstreamNamed = async (name: string): Promise<LoopbackUpstream> =>
    startUpstream({
      handler: (req, res) => {
        if (req.url === '/ready') res.statusCode = readyStatus.get(name) ?? 200;
        res.end(name);
      },
    });
  const hostPort = (upstream: LoopbackUpstream): string => upstream.origin.slice('http://'.length);
  const target = (upstream: LoopbackUpstream, weight?: number): string => `{ url: "${upstream.origin}"${weight === undefined ? '' : `, weight: ${weight}`} }`;

  // The checked upstream's check timeout is not what is tested: at 100 ms, stalls of a loaded machine
  // timed out the healthy target's checks too, and the route answered 503 where target c should serve.
  const config = (hashTargets: readonly LoopbackUpstream[]): string => `
version: "1.0.0"
upstreams:
  - { name: weighted, targets: [${target(named[0]!, 100)}, ${target(named[1]!, 200)}, ${target(named[2]!, 300)}] }
  - { name: least, targets: [${target(slow)}, ${target(named[0]!)}], balancing: { algorithm: least-connections } }
  - { name: hashed, targets: [${hashTargets.map((u) => target(u)).join(', ')}], balancing: { algorithm: consistent-hash, hashOn: header, hashKey: X-User } }
  - { name: ejecting, targets: [${target(flaky)}, ${target(named[1]!)}], outlierDetection: { consecutiveFailures: 3, baseEjectionTime: 6000 } }
  - { name: checked, targets: [${target(sick)}, ${target(named[2]!)}], healthCheck: { enabled: true, url: "http://ignored.example/ready", interval: 1000, timeout: 1000, unhealthyThreshold: 2, healthyThreshold: 1 } }
  - { name: retrying, targets: [{ url: "http://127.0.0.1:${dead}" }, ${target(named[0]!)}, ${target(named[1]!)}], balancing: { algorithm: consistent-hash, hashOn: header, hashKey: x-user } }
routes:
  - { id: weighted, path: /weighted/*, upstream: weighted, retry: { enabled: false, attempts: 0, backoff: exponential } }
  - { id: least, path: /least/*, upstream: least }
  - { id: hashed, path: /hashed/*, upstream: hashed }
  - { id: ejecting, path: /ejecting/*, upstream: ejecting, retry: { enabled: false, attempts: 0, backoff: exponential } }
  - { id: checked, path: /checked/*, upstream: checked, retry: { enabled: false, attempts: 0, backoff: exponential } }
  - { id: retrying, path: /retrying/*, upstream: retrying, retry: { enabled: true, attempts: 1, backoff: exponential, initialDelay: 10 } }
  - { id: no-retry, path: /no-retry/*, upstream: retrying, retry: { enabled: false, attempts: 0, backoff: exponential } }
`;

  before(async () => {
    for (const name of ['a', 'b', 'c', 'd']) named.push(await upstreamNamed(name));
    slow = await startUpstream({ handler: (_req, res) => setTimeout(() => res.end('slow'), 300) });
    flaky = await startUpstream({
      handler: (_req, res) => {
        res.statusCode = flakyBroken ? 500 : 200;
        res.end('flaky');
      },
    });
    sick = await startUpstream({
      handler: (req, res) => {
        res.statusCode = req.url?.startsWith('/ready') === true ? sickStatus : 200;
        res.end('sick');
      },
    });
    dead = await refusedPort();
    gateway = await startGatewayProcess({ config: config(named.slice(0, 3)) });
  });

  after(async () => {
    await gateway?.stop();
    await Promise.all([...named, slow, flaky, sick].map((u) => u?.close()));
  });

  const get = (path: string, headers: Record<string, string> = {}, agent?: http.Agent): Promise<ClientResponse> =>
    request(`${gateway.url}${path}`, { headers, ...(agent === undefined ? {} : { agent }) });

  test('smooth weighted round-robin: 10,000 requests split by weight within 2 %', { timeout: 120_000 }, async () => {
    const responses = await load(10_000, 16, (_i, agent) => get('/weighted/x', {}, agent));
    const counts = tally(responses);
    const shares = { a: 100 / 600, b: 200 / 600, c: 300 / 600 };
    for (const [name, expected] of Object.entries(shares)) {
      const share = (counts.get(`200 ${name}`) ?? 0) / responses.length;
      assert.ok(Math.abs(share - expected) <= 0.02, `${name}: ${share.toFixed(4)} of the requests, expected ${expected.toFixed(4)} ± 0.02 (${JSON.stringify([...counts])})`);
    }
  });

  test('least connections: a slow target holding requests gets few new ones', { timeout: 60_000 }, async () => {
    const responses = await load(120, 6, (_i, agent) => get('/least/x', {}, agent));
    const counts = tally(responses);
    const slowCount = counts.get('200 slow') ?? 0;
    assert.equal(slowCount + (counts.get('200 a') ?? 0), 120, JSON.stringify([...counts]));
    // Round-robin would send it 60; least-connections sends it one request per 300 ms it is busy.
    assert.ok(slowCount > 0 && slowCount < 24, `slow target served ${slowCount} of 120`);
  });

  test('consistent hash: a key stays on its target; a joining target takes about 1/N of the keys and only those', { timeout: 60_000 }, async () => {
    const keys = Array.from({ length: 400 }, (_, i) => `user-${i}`);
    const owners = async (): Promise<string[]> => (await load(keys.length, 8, (i, agent) => get('/hashed/x', { 'x-user': keys[i]! }, agent))).map((r) => r.text);
    const before = await owners();
    assert.deepEqual(await owners(), before, 'the same key goes to the same target');
    assert.equal(new Set(before).size, 3, 'keys spread over the three targets');

    gateway.writeConfig(config(named.slice(0, 4)));
    gateway.signal('SIGHUP');
    await until('the fourth target', async () => ((await owners()).includes('d') ? true : undefined));
    const after = await owners();
    const moved = keys.filter((_, i) => before[i] !== after[i]);
    assert.ok(
      keys.every((_, i) => before[i] === after[i] || after[i] === 'd'),
      'every key that moved went to the new target',
    );
    const fraction = moved.length / keys.length;
    assert.ok(fraction > 0.12 && fraction < 0.4, `about 1/4 of the keys should move, ${fraction} did`);
  });

  test('outlier detection: consecutive failures eject a target, which returns after the ejection time', { timeout: 60_000 }, async () => {
    flakyBroken = true;
    const flakyCalls = (): number => flaky.requests.length;
    for (let i = 0; i < 12; i += 1) await get('/ejecting/x');
    const deep = async (): Promise<DeepEndpoint[]> =>
      (await get('/health/deep')).json<{ upstreams: Record<string, { endpoints: DeepEndpoint[] }> }>().upstreams['ejecting']?.endpoints ?? [];
    const ejected = (await deep()).find((e) => e.target === hostPort(flaky));
    assert.equal(ejected?.state, 'ejected', JSON.stringify(await deep()));
    assert.equal(ejected?.ejections, 1);
    const callsWhileEjected = flakyCalls();
    const during = await load(20, 4, (_i, agent) => get('/ejecting/x', {}, agent));
    assert.deepEqual([...tally(during)], [['200 b', 20]], 'all traffic on the healthy target');
    assert.equal(flakyCalls(), callsWhileEjected, 'no request reached the ejected target');

    flakyBroken = false;
    await until('the target back in rotation', async () => ((await get('/ejecting/x')).text === 'flaky' ? true : undefined));
    assert.equal((await deep()).find((e) => e.target === hostPort(flaky))?.state, 'available');
    const metrics = (await get('/metrics')).text;
    assert.match(metrics, new RegExp(`gateway_upstream_target_requests_total\\{upstream="ejecting",target="${hostPort(flaky)}",outcome="failure"\\} [1-9]`));
    assert.doesNotMatch(metrics, /target="http:/, 'targets are labelled host:port, never by URL');
  });

  test('active health checks per target: an unhealthy target gets no traffic; with none left the route answers 503', { timeout: 60_000 }, async () => {
    const states = async (): Promise<string[]> =>
      ((await get('/health/deep')).json<{ upstreams: Record<string, { endpoints: DeepEndpoint[] }> }>().upstreams['checked']?.endpoints ?? []).map((e) => `${e.target} ${e.state}`);
    await until('a check of each target', async () => (sick.requests.some((r) => r.url === '/ready') && named[2]!.requests.some((r) => r.url === '/ready') ? true : undefined));
    sickStatus = 500;
    await until('the target marked unhealthy', async () => ((await states()).includes(`${hostPort(sick)} unhealthy`) ? true : undefined));
    const during = await load(20, 4, (_i, agent) => get('/checked/x', {}, agent));
    assert.deepEqual([...tally(during)], [['200 c', 20]]);
    readyStatus.set('c', 500);
    await until('both targets unhealthy', async () => ((await states()).every((state) => state.endsWith(' unhealthy')) ? true : undefined));
    const none = await get('/checked/x');
    assert.equal(none.status, 503);
    assert.equal(none.json<{ message: string }>().message, 'Upstream is unhealthy');
    readyStatus.delete('c');
    sickStatus = 200;
    await until('both targets back', async () => ((await states()).every((state) => state.endsWith(' available')) ? true : undefined));
    const back = tally(await load(20, 4, (_i, agent) => get('/checked/x', {}, agent)));
    assert.ok((back.get('200 sick') ?? 0) >= 5, `the target is back in rotation: ${JSON.stringify([...back])}`);
  });

  test('a retry goes to another target than the one that failed', { timeout: 60_000 }, async () => {
    const keys = Array.from({ length: 60 }, (_, i) => `k${i}`);
    const without = await load(keys.length, 6, (i, agent) => get('/no-retry/x', { 'x-user': keys[i]! }, agent));
    const failedKeys = keys.filter((_, i) => without[i]!.status === 502);
    assert.ok(failedKeys.length > 0, 'some keys hash to the refusing target');
    const withRetry = await load(failedKeys.length, 6, (i, agent) => get('/retrying/x', { 'x-user': failedKeys[i]! }, agent));
    assert.deepEqual(
      withRetry.map((r) => r.status),
      failedKeys.map(() => 200),
      'each retry reached a live target',
    );
  });
});
