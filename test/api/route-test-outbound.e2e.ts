import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loginToManagementApi, startUpstream, type LoopbackUpstream, type ManagementApi } from '@gateway/testing';
import { ADMIN, ADMIN_ENV } from './auth-fixtures';
import { startControlPlaneProcess, type ControlPlaneProcess } from './control-plane-process';

/*
 * Issue 11, "Secrets and outbound requests": POST /api/routes/:id/test is a request the gateway
 * makes on an admin's behalf from inside the network. The outbound-target rule refuses cloud
 * metadata and link-local targets (OUTBOUND_ALLOW_CIDRS lists exceptions), and every call is
 * audited, whatever its outcome.
 */
interface AuditRow {
  actor: string;
  action: string;
  target: string | null;
  details: { method?: string; upstream?: string; outcome?: unknown } | null;
}

async function routeTestAudits(api: ManagementApi, routeId: string): Promise<AuditRow[]> {
  const rows = (await api.expect(200, 'GET', '/api/audit-log?limit=100')).json<{ data: AuditRow[] }>().data;
  return rows.filter((row) => row.action === 'route.test' && row.target === routeId);
}

async function createRoute(api: ManagementApi, id: string, upstream: string, extra: Record<string, unknown> = {}): Promise<void> {
  await api.expect(201, 'POST', '/api/routes', { id, path: `/${id}/*`, upstream, ...extra });
}

describe('POST /api/routes/:id/test and the outbound-target rule', () => {
  let cp: ControlPlaneProcess;
  let api: ManagementApi;
  let upstream: LoopbackUpstream;

  before(async () => {
    upstream = await startUpstream();
    cp = await startControlPlaneProcess({ env: ADMIN_ENV });
    api = await loginToManagementApi(cp.url, ADMIN);
  });
  after(async () => {
    await cp?.stop();
    await upstream?.close();
  });

  test('a route to http://169.254.169.254/ is refused with 422 OUTBOUND_TARGET_REFUSED that says why; the call is audited', async () => {
    await createRoute(api, 'metadata', 'http://169.254.169.254/latest');
    const res = await api.call('POST', '/api/routes/metadata/test', { path: '/metadata/meta-data/iam' });
    assert.equal(res.status, 422, res.text);
    const body = res.json<{ success: boolean; code: string; error: string; details: { address: string; range: string } }>();
    assert.equal(body.success, false);
    assert.equal(body.code, 'OUTBOUND_TARGET_REFUSED');
    assert.match(body.error, /^169\.254\.169\.254 is IPv4 link-local, where cloud metadata services answer .*OUTBOUND_ALLOW_CIDRS lists exceptions$/);
    assert.deepEqual(body.details, { address: '169.254.169.254', range: '169.254.0.0/16' });

    const [row, ...more] = await routeTestAudits(api, 'metadata');
    assert.equal(more.length, 0);
    assert.equal(row?.actor, ADMIN.email);
    assert.deepEqual(row?.details, { method: 'GET', upstream: 'http://169.254.169.254/latest/meta-data/iam', outcome: 'OUTBOUND_TARGET_REFUSED' });
  });

  test('IPv6 link-local and the AWS IPv6 metadata address are refused too', async () => {
    for (const [id, target] of [['linklocal6', 'http://[fe80::1]:8080'], ['aws6', 'http://[fd00:ec2::254]']] as const) {
      await createRoute(api, id, target);
      const res = await api.call('POST', `/api/routes/${id}/test`);
      assert.equal(res.status, 422, res.text);
      assert.equal(res.json<{ code: string }>().code, 'OUTBOUND_TARGET_REFUSED');
    }
  });

  test('loopback, by address and by name, is allowed; every call is audited with its outcome (answers, validation errors)', async () => {
    await createRoute(api, 'loopback', `${upstream.origin}/v1`);
    const byAddress = await api.expect(200, 'POST', '/api/routes/loopback/test', { path: '/loopback/users?token=secret' });
    assert.equal(byAddress.json<{ data: { status: number } }>().data.status, 200);
    await createRoute(api, 'by-name', upstream.origin.replace('127.0.0.1', 'localhost'));
    const byName = await api.expect(200, 'POST', '/api/routes/by-name/test');
    assert.equal(byName.json<{ data: { status: number } }>().data.status, 200);
    await api.expect(400, 'POST', '/api/routes/loopback/test', { method: 'BREW' });

    const rows = await routeTestAudits(api, 'loopback');
    assert.deepEqual(
      rows.map((row) => row.details).reverse(),
      [
        // The query is left out: it may carry credentials.
        { method: 'GET', upstream: `${upstream.origin}/v1/users`, outcome: 200 },
        { outcome: 'VALIDATION_ERROR' },
      ],
    );
    assert.equal((await routeTestAudits(api, 'by-name')).length, 1);
  });
});

describe('OUTBOUND_ALLOW_CIDRS', () => {
  test('lists exceptions: a link-local target it names is tried, not refused; others stay refused', async () => {
    const cp = await startControlPlaneProcess({ env: { ...ADMIN_ENV, OUTBOUND_ALLOW_CIDRS: '169.254.77.0/24' } });
    try {
      const api = await loginToManagementApi(cp.url, ADMIN);
      // The request is sent: whatever answers (nothing, or a network's egress filter), the result
      // is a 200 of the API (docs/routes-api.md), where a refusal is a 422.
      await createRoute(api, 'allowed', 'http://169.254.77.1:9', { timeout: { connect: 300, request: 300 } });
      const res = await api.expect(200, 'POST', '/api/routes/allowed/test');
      const data = res.json<{ data: { url: string; status?: number; error?: string } }>().data;
      assert.equal(data.url, 'http://169.254.77.1:9/');
      assert.ok(data.status !== undefined || /^UPSTREAM_(UNREACHABLE|TIMEOUT)$/.test(String(data.error)), res.text);
      await createRoute(api, 'still-refused', 'http://169.254.169.254');
      assert.equal((await api.call('POST', '/api/routes/still-refused/test')).status, 422);
    } finally {
      await cp.stop();
    }
  });

  test('a bad entry stops the start, naming the variable and the entry', async () => {
    await assert.rejects(startControlPlaneProcess({ env: { ...ADMIN_ENV, OUTBOUND_ALLOW_CIDRS: '169.254.0.0/16, metadata.internal' } }), /OUTBOUND_ALLOW_CIDRS.*"metadata\.internal" is not an IP address or CIDR/s);
  });
});
