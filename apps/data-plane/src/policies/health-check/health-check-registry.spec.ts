import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { refusedPort } from '@gateway/testing';
import { createPinoLogger } from '../../adapters/pino-logger.adapter';
import { DeadlineWheel } from '../../engine/deadline-wheel';
import type { Exchange } from '../../engine/exchange';
import { UpstreamHealthRegistry } from '../../engine/upstream-health-registry';
import { createTestServices } from '../../testing/engine-services.fixture';
import { HealthCheckRegistry } from './health-check-registry';
import type { UpstreamTls } from '../../engine/upstream-tls';
import type { HealthCheckSettings } from './health-checker';

describe('health checks of a several-target upstream', () => {
  const marked: Array<[string, string, boolean]> = [];
  const health = new UpstreamHealthRegistry();
  health.markTargetHealthy = (upstream, origin, healthy) => void marked.push([upstream, origin, healthy]);
  const { services, close } = createTestServices({ logger: createPinoLogger('silent'), health, deadlines: new DeadlineWheel<Exchange>() });
  const registry = new HealthCheckRegistry(services);
  after(() => {
    registry.close();
    close();
  });
  const settings = (url: string): HealthCheckSettings => ({ url, interval: 50, timeout: 50, healthyThreshold: 1, unhealthyThreshold: 1, expectedStatus: 200, expectedBody: undefined });

  it('tells the balancer each target verdict, and reports the upstream as the target serving best', async () => {
    const [down, alsoDown] = [await refusedPort(), await refusedPort()];
    const a = `http://127.0.0.1:${down}`;
    const b = `http://127.0.0.1:${alsoDown}`;
    registry.ensure(`orders/127.0.0.1:${down}`, settings(`${a}/health`), { upstream: 'orders', origin: a });
    registry.ensure(`orders/127.0.0.1:${alsoDown}`, settings(`${b}/health`), { upstream: 'orders', origin: b });
    registry.ensure('route:r', settings(`${a}/health`));
    registry.bindRoute('r-orders', [`orders/127.0.0.1:${down}`, `orders/127.0.0.1:${alsoDown}`]);
    assert.deepEqual(marked, [['orders', a, true], ['orders', b, true]], 'a new check starts healthy');
    const deadline = Date.now() + 10_000;
    while (marked.length < 4 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(marked.slice(2).sort(), [['orders', a, false], ['orders', b, false]].sort(), 'both targets fail their checks (in either order)');
    assert.deepEqual(Object.keys(registry.byUpstream()).sort(), ['orders', 'route:r']);
    assert.equal(registry.byUpstream()['orders']?.status, 'Unhealthy');
    assert.equal(registry.status('r-orders')?.status, 'Unhealthy');
    registry.retain(new Set(), new Set());
    assert.deepEqual(marked.slice(4).sort(), [['orders', a, true], ['orders', b, true]].sort(), 'a removed check no longer holds its target out');
  });

  it('keeps a check whose TLS settings are unchanged and replaces one whose CA changed (a rotated CA file)', async () => {
    const url = `https://127.0.0.1:${await refusedPort()}/health`;
    const tls = (caDigest: string): UpstreamTls => ({ ca: Buffer.from(caDigest), caDigest, verify: true, serverName: undefined });
    const first = registry.ensure('secure', settings(url), undefined, tls('one'));
    assert.equal(registry.ensure('secure', settings(url), undefined, tls('one')), first, 'an equal load keeps the check and its counts');
    const rotated = registry.ensure('secure', settings(url), undefined, tls('two'));
    assert.notEqual(rotated, first);
    assert.equal(rotated.tls?.caDigest, 'two', 'the new check trusts the new bundle');
    registry.retain(new Set(), new Set());
  });
});
