import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import { PROXY_DEFAULTS, type ProxyConfig } from '@gateway/route-model';
import { makeTempDir, makeTestCa, type TestCa } from '@gateway/testing';
import { POLICY_FACTORIES } from '../policies/policy-registry';
import { createTestServices } from '../testing/engine-services.fixture';
import { recordingLogger, validConfig as config } from '../testing/spec-helpers.fixture';
import { DeadlineWheel } from './deadline-wheel';
import type { Exchange } from './exchange';
import { RouteTable, type TableInputs } from './route-table';
import { runToEnd } from './time-slices';
import { UpstreamPools } from './upstream-target';
import { tlsClientOptions, UpstreamTlsResolver, type UpstreamTls } from './upstream-tls';
import { UpstreamHealthRegistry } from './upstream-health-registry';
import { UpstreamRegistry } from './upstreams/upstream-registry';

describe('upstream CA files when routes load', () => {
  const logger = recordingLogger();
  const { services, close } = createTestServices({ logger, health: new UpstreamHealthRegistry(), deadlines: new DeadlineWheel<Exchange>() });
  const pools = new UpstreamPools();
  const registry = new UpstreamRegistry({ logger, metrics: services.metrics });
  const dir = makeTempDir('upstream-ca-');
  const caFile = path.join(dir.path, 'ca.pem');
  let first: TestCa;
  let second: TestCa;
  let source: ProxyConfig;
  const inputs: TableInputs = { factories: POLICY_FACTORIES, baseEnv: { settings: { ...PROXY_DEFAULTS, trustedProxies: [] }, services }, pools, registry };
  const build = (previous?: RouteTable) => {
    registry.replace(source.upstreams);
    return runToEnd(RouteTable.buildSteps({ config: source }, inputs, previous));
  };
  const byId = (table: RouteTable, id: string) => table.routes.find((r) => r.id === id) as RouteTable['routes'][number];

  before(() => {
    first = makeTestCa('first CA');
    second = makeTestCa('second CA');
    copyFileSync(first.certPath, caFile);
    source = config({
      upstreams: [
        { name: 'secure', url: 'https://127.0.0.1:1/v1', tls: { caFile } },
        { name: 'pair', targets: [{ url: 'http://127.0.0.1:2' }, { url: 'http://127.0.0.2:2' }] },
      ],
      routes: [
        { id: 'secure', path: '/secure/*', upstream: 'secure' },
        { id: 'plain', path: '/plain/*', upstream: 'http://127.0.0.1:3' },
        { id: 'pair', path: '/pair/*', upstream: 'pair' },
      ],
    });
  });
  after(() => {
    registry.close();
    pools.destroy();
    close();
    first?.remove();
    second?.remove();
    dir.remove();
  });

  test('a CA file rotated at the same path reaches a route that did not change; the others keep their compiled form', () => {
    const before = build();
    const old = byId(before.table, 'secure');
    assert.equal(old.upstream.tls?.refusal, undefined);
    copyFileSync(second.certPath, caFile);
    const rotated = build(before.table);
    assert.equal(rotated.compiled, 0, 'nothing is compiled again');
    assert.equal(rotated.retargeted, 1);
    const now = byId(rotated.table, 'secure');
    assert.notEqual(now.upstream.tls?.caDigest, old.upstream.tls?.caDigest);
    assert.deepEqual(now.upstream.tls?.ca, Buffer.from(second.cert));
    assert.notEqual(now.upstream.pool, old.upstream.pool, 'new connections, trusting the new CA');
    assert.equal(now.callUpstream, old.callUpstream, 'the pipeline (and its policy state) is the same');
    assert.equal(byId(rotated.table, 'plain'), byId(before.table, 'plain'));
    const again = build(rotated.table);
    assert.equal(again.retargeted, 0, 'an unchanged file changes nothing');
    assert.equal(byId(again.table, 'secure'), now);
  });

  test('a CA file that no longer loads fails only its upstream, logged with the upstream, field and file; the load goes through', () => {
    const before = build();
    const lines = logger.lines.length;
    renameSync(caFile, `${caFile}.away`);
    try {
      const broken = build(before.table);
      const secure = byId(broken.table, 'secure');
      assert.equal(secure.upstream.tls?.refusal, `upstream 'secure': upstreams[0].tls.caFile ${caFile} does not exist`);
      assert.equal(secure.upstream.tls?.ca, undefined);
      assert.equal(secure.upstream.tls?.refusalSummary, "upstream 'secure': upstreams[0].tls.caFile cannot be loaded (the data plane's log says which file and why)", 'what health checks report: no file');
      assert.equal(byId(broken.table, 'plain'), byId(before.table, 'plain'));
      const logged = logger.lines.slice(lines).filter((l) => l.level === 'error');
      assert.deepEqual(
        logged.map((l) => l.fields),
        [{ upstream: 'secure', field: 'upstreams[0].tls.caFile', file: caFile, reason: `${caFile} does not exist` }],
      );
      // Built from scratch too (a data plane starting on a snapshot): no throw, the same refusal.
      assert.equal(byId(build().table, 'secure').upstream.tls?.refusal, secure.upstream.tls?.refusal);
    } finally {
      renameSync(`${caFile}.away`, caFile);
    }
    assert.equal(byId(build().table, 'secure').upstream.tls?.refusal, undefined, 'back once the file is');
  });

  test('a prune keeps the pools balanced traffic uses (each endpoint of a named upstream)', () => {
    const { table } = build();
    const route = byId(table, 'pair');
    const group = registry.group('pair');
    assert.ok(group !== undefined && route.balanced !== undefined);
    const dialled = group.endpoints.map((e) => e.dialFor(route.upstream, pools).pool);
    assert.equal(dialled.length, 2);
    const inUse = table.poolsInUse();
    for (const pool of dialled) assert.ok(inUse.has(pool), 'an endpoint pool is in use');
    pools.prune(inUse);
    // Still registered: asking for the same origin gives the same pool, warm connections included.
    for (const endpoint of group.endpoints) {
      const { secure, hostname, port } = endpoint.target;
      assert.equal(pools.poolFor({ secure, hostname, port }, { keepAliveMs: route.upstream.pool.keepAliveMs, tls: undefined }), endpoint.dialFor(route.upstream, pools).pool);
    }
  });
});

describe('tlsClientOptions: what requests, WebSocket handshakes and health checks connect with', () => {
  const tls = (settings: Partial<UpstreamTls>): UpstreamTls => ({ ca: undefined, caDigest: '', verify: true, serverName: undefined, ...settings });

  test('SNI is the server name, else the host name, never an IP literal; verification is on unless verify: false', () => {
    assert.deepEqual(tlsClientOptions('api.example', undefined), { servername: 'api.example', rejectUnauthorized: true });
    assert.deepEqual(tlsClientOptions('10.0.0.7', undefined), { rejectUnauthorized: true });
    assert.deepEqual(tlsClientOptions('::1', tls({})), { rejectUnauthorized: true });
    assert.deepEqual(tlsClientOptions('10.0.0.7', tls({ serverName: 'api.internal' })), { servername: 'api.internal', rejectUnauthorized: true });
    const ca = Buffer.from('-----BEGIN CERTIFICATE-----');
    assert.deepEqual(tlsClientOptions('api.example', tls({ ca, verify: false })), { servername: 'api.example', ca, rejectUnauthorized: false });
  });

  test("a named upstream's settings are resolved once per load, for its routes and for what policies ask (health checks)", () => {
    const ca = makeTestCa('resolver CA');
    try {
      const logger = recordingLogger();
      const source = config({
        proxy: { upstreamTls: { caFile: ca.certPath } },
        upstreams: [{ name: 'named', url: 'https://127.0.0.1:1', tls: { verify: false, serverName: 'api.internal' } }],
        routes: [
          { id: 'by-name', path: '/a/*', upstream: 'named' },
          { id: 'own-url', path: '/b/*', upstream: 'https://127.0.0.1:2' },
        ],
      });
      const resolver = new UpstreamTlsResolver(source, logger);
      const [byName, ownUrl] = source.routes as [ProxyConfig['routes'][number], ProxyConfig['routes'][number]];
      assert.equal(resolver.forUpstream('named'), resolver.forRoute(byName), 'the same object: one resolution');
      assert.deepEqual([resolver.forUpstream('named').verify, resolver.forUpstream('named').serverName], [false, 'api.internal']);
      assert.equal(resolver.forUpstream(undefined), resolver.forRoute(ownUrl), 'a route URL gets proxy.upstreamTls');
      assert.deepEqual(resolver.forUpstream(undefined).ca, Buffer.from(ca.cert));
      assert.equal(logger.lines.filter((l) => l.message.includes('NOT verified')).length, 1, 'verify: false warned once per load');
    } finally {
      ca.remove();
    }
  });
});
