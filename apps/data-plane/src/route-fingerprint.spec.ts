import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeTempDir, manyRoutesConfig } from '@gateway/testing';
import { createPinoLogger } from './adapters/pino-logger.adapter';
import { DeadlineWheel } from './engine/deadline-wheel';
import type { Exchange } from './engine/exchange';
import { RouteTable, type TableInputs } from './engine/route-table';
import { runInSlices, runToEnd } from './engine/time-slices';
import { UpstreamHealthRegistry } from './engine/upstream-health-registry';
import { UpstreamPools } from './engine/upstream-target';
import { POLICY_FACTORIES } from './policies/policy-registry';
import { loadProxyConfig, loadProxyConfigForReload } from './proxy-config-source';
import { fingerprintSteps, routeFingerprint } from './route-fingerprint';
import { FINGERPRINT_BYTES } from './proxy-config-worker-protocol';
import { createTestServices } from './testing/engine-services.fixture';

const { services, close } = createTestServices({ logger: createPinoLogger('silent'), health: new UpstreamHealthRegistry(), deadlines: new DeadlineWheel<Exchange>() });
const pools = new UpstreamPools();
after(() => {
  pools.destroy();
  close();
});

test('routes loaded at start-up, fingerprinted in the background, are found unchanged by the first worker reload', async () => {
  const dir = makeTempDir();
  try {
    const file = path.join(dir.path, 'proxy.yml');
    writeFileSync(file, manyRoutesConfig({ count: 600, upstreamOrigin: 'http://127.0.0.1:9' }).yaml);
    // Start-up: read in this thread, no fingerprints.
    const initial = await loadProxyConfig(file);
    assert.ok(initial.ok);
    const inputs: TableInputs = { factories: POLICY_FACTORIES, baseEnv: { settings: initial.config.proxy, services }, pools };
    const served = runToEnd(RouteTable.buildSteps({ config: initial.config }, inputs, undefined)).table;
    served.settleIndex();
    assert.ok(served.routes.every((route) => route.fingerprint === undefined));
    await runInSlices(fingerprintSteps(served.routes));
    // The worker's reload of the same file: the same fingerprints, so nothing is parsed, compared or copied.
    const reloaded = await loadProxyConfigForReload(file, served.routes);
    assert.ok(reloaded.ok);
    assert.deepEqual(
      served.routes.map((route) => route.fingerprint),
      reloaded.fingerprints,
    );
    reloaded.config.routes.forEach((route, i) => assert.equal(route, served.config.routes[i], `route ${i} is the served object, not parsed again`));
    const built = runToEnd(RouteTable.buildSteps({ config: reloaded.config, fingerprints: reloaded.fingerprints }, inputs, served));
    assert.equal(built.compiled, 0);
    assert.equal(built.indexUpdated, true);
    built.table.settleIndex();
    built.table.routes.forEach((route, i) => assert.equal(route, served.routes[i]));
  } finally {
    dir.remove();
  }
});

test('a fingerprint is the start of the base64url SHA-256 of the UTF-8 JSON, as with a Hash object', () => {
  // crypto.hash replaced createHash().update().digest(): the digests must not change (non-ASCII and astral text included).
  for (const json of ['{}', '{"id":"r-1","path":"/a/*"}', '{"id":"é","path":"/ü/😀"}', JSON.stringify({ id: 'x'.repeat(5000) })]) {
    const expected = createHash('sha256').update(json, 'utf8').digest('base64url').slice(0, FINGERPRINT_BYTES);
    assert.equal(routeFingerprint(json), expected);
    assert.equal(expected.length, FINGERPRINT_BYTES);
  }
  assert.notEqual(routeFingerprint('{"a":1}'), routeFingerprint('{"a":2}'));
});
