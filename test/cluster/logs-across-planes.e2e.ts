import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, scryptSync } from 'node:crypto';
import type { LogLine } from '@gateway/logging';
import { request } from '@gateway/testing';
import { ProcessCluster } from './process-cluster';
import { eventually } from './stand-in-control-plane';

/*
 * GET /api/logs when the planes run apart (real processes, a private redis-server): the control
 * plane asks its data planes over the bus for their recent lines (a logs-query command) and
 * merges them with its own, each data plane's lines named by its instance id.
 */

/** A stored basic-auth hash the route model accepts (small N keeps it fast). */
function basicHash(password: string): string {
  const salt = randomBytes(16);
  const key = scryptSync(password, salt, 32, { N: 1024, r: 8, p: 1 });
  return `scrypt$1024$8$1$${salt.toString('base64')}$${key.toString('base64')}`;
}

describe('GET /api/logs with the planes in separate processes', () => {
  let cluster: ProcessCluster;

  before(async () => {
    cluster = await ProcessCluster.start({ dataPlanes: 2, label: 'e2e-logs' });
    await cluster.api.expect(201, 'POST', '/api/routes', { id: 'guarded', path: '/guarded/*', upstream: 'http://127.0.0.1:9', auth: { enabled: true, type: 'basic', basic: { users: { alice: basicHash('correct horse') } } } });
    await eventually(() => cluster.everyPlaneAnswers('/guarded/x', '401'), 'both data planes serve the guarded route', 5000);
  });
  after(async () => {
    await cluster?.close();
  });

  const logs = async (query: string): Promise<LogLine[]> => {
    const res = await cluster.api.expect(200, 'GET', `/api/logs${query}`);
    return res.json<{ data: LogLine[] }>().data;
  };

  test('each data plane\'s refusal line, with its correlation id and instance, next to the control plane\'s lines', async () => {
    for (const [index, plane] of cluster.dataPlanes.entries()) {
      const res = await request(`${plane.url}/guarded/orders`, { headers: { 'x-correlation-id': `corr-apart-${index}`, authorization: 'Basic YWxpY2U6d3Jvbmc=' } });
      assert.equal(res.status, 401, res.text);
    }
    const refusal = (lines: LogLine[], index: number) => lines.find((l) => l.plane === 'data' && l.correlationId === `corr-apart-${index}`);
    await eventually(async () => {
      const lines = await logs('?limit=1000');
      return refusal(lines, 0) !== undefined && refusal(lines, 1) !== undefined;
    }, 'both data planes\' refusal lines in GET /api/logs', 10_000);
    const lines = await logs('?limit=1000');
    const [first, second] = [refusal(lines, 0)!, refusal(lines, 1)!];
    assert.equal(first.message, 'authentication refused');
    assert.equal(first.level, 'warn');
    assert.equal(first.fields['routeId'], 'guarded');
    assert.ok(typeof first.instance === 'string' && typeof second.instance === 'string' && first.instance !== second.instance, 'each line names its data plane');
    assert.ok(lines.some((l) => l.plane === 'control' && l.instance === undefined), 'the control plane\'s own lines are there too');
    const times = lines.map((l) => Date.parse(l.time));
    assert.deepEqual(times, [...times].sort((a, b) => a - b), 'oldest first across planes');
    assert.ok(!JSON.stringify(lines).includes('YWxpY2U6d3Jvbmc='), 'no credential in any line');
  });

  test('?level= and ?limit= apply to the merged lines', async () => {
    const warnings = await logs('?level=warn&limit=1000');
    assert.ok(warnings.some((l) => l.plane === 'data'));
    assert.ok(warnings.every((l) => ['fatal', 'error', 'warn'].includes(l.level)));
    assert.equal((await logs('?limit=3')).length, 3);
  });
});
