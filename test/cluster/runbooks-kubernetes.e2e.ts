import { randomBytes, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EVENTS_CHANNEL, type SignedBus } from '@gateway/events';
import { makeTempDir, REPO_ROOT } from '@gateway/testing';
import { ADMIN, ADMIN_ENV, caller, login, type Call } from '../api/auth-fixtures';
import { startControlPlaneProcess, type ControlPlaneProcess } from '../api/control-plane-process';
import { signedRedisBus } from '../api/signed-redis-bus';
import { until } from '../api/webhooks-fixtures';
import { deniedCalls, readRoleRules, type KubernetesCall } from './kubernetes-rbac';

/*
 * SCALE_RESOURCE and RESTART_POD against a loopback fake Kubernetes API (the real
 * @kubernetes/client-node in the real control plane, through a kubeconfig): the fake receives
 * exactly the expected calls, and each is allowed by the Role in deploy/base.
 */
const REDIS_URL = process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const CLUSTER_TOKEN = 'runbooks-k8s-cluster-token-0123456789abcdef';
const NS = 'gw';
const DEPLOY = 'gateway-data-plane';
const ROLE_FILE = path.join(REPO_ROOT, 'deploy', 'base', 'control-plane-role.yaml');

type Call_ = KubernetesCall;
type Execution = { status: string; actions: Array<{ outcome?: { status: string; code?: string; message: string } }> };

describe('Kubernetes runbook actions against a loopback Kubernetes API', () => {
  const prefix = `e2e-k8s:${process.pid}:${randomBytes(4).toString('hex')}:`;
  const dir = makeTempDir('k8s-');
  let cp: ControlPlaneProcess;
  let call: Call;
  let token: string;
  let events: SignedBus;
  let api: http.Server;
  const calls: Call_[] = [];
  const state = { replicas: 2, hpaMin: 2, pods: ['dp-a', 'dp-b'], next: 0, refuseNextEviction: false };

  const rest = async <T>(method: string, urlPath: string, body?: unknown) => {
    const res = await call(method, urlPath, { token, body });
    return { status: res.status, json: res.json() as { data: T } };
  };
  const settings = async (runbooks: Record<string, unknown>): Promise<void> => {
    const current = (await rest<{ settings: Record<string, Record<string, unknown>> }>('GET', '/api/settings')).json.data.settings;
    const res = await rest('PUT', '/api/settings', { ...current, runbooks: { ...current['runbooks'], ...runbooks } });
    assert.equal(res.status, 200, JSON.stringify(res.json));
  };
  const fire = async (type: string): Promise<string> => {
    const id = `evt_${randomUUID()}`;
    await events.publish(EVENTS_CHANNEL, { id, type, createdAt: new Date().toISOString(), data: { severity: 'CRITICAL', summary: 'load', confidence: 0.95, context: { resource_type: 'deployment' } } });
    return id;
  };
  const settled = (eventId: string, wanted: (e: Execution) => boolean) =>
    until(`execution of ${eventId}`, async () => {
      const found = (await rest<Execution[]>('GET', `/api/runbook-executions?eventId=${eventId}`)).json.data[0];
      return found !== undefined && wanted(found) ? found : undefined;
    }, 30_000);
  const target = (kubeconfig: string | null) => ({ kubeconfig, namespace: NS, deployment: DEPLOY, hpa: DEPLOY, podSelector: 'app.kubernetes.io/component=data-plane', minReplicas: 1, maxReplicas: 4 });

  before(async () => {
    api = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const body: unknown = text === '' ? null : JSON.parse(text);
        calls.push({ method: req.method ?? '', path: req.url ?? '', body });
        const json = (status: number, value: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
        const url = new URL(req.url ?? '/', 'http://x');
        const scale = () => ({ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: DEPLOY, namespace: NS }, spec: { replicas: state.replicas }, status: { replicas: state.replicas } });
        const hpa = () => ({ apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: DEPLOY, namespace: NS }, spec: { minReplicas: state.hpaMin, maxReplicas: 10, scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: DEPLOY } } });
        const pod = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: NS }, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } });
        if (url.pathname === `/apis/apps/v1/namespaces/${NS}/deployments/${DEPLOY}/scale`) {
          if (req.method === 'PATCH') state.replicas = (body as { spec: { replicas: number } }).spec.replicas;
          return json(200, scale());
        }
        if (url.pathname === `/apis/autoscaling/v2/namespaces/${NS}/horizontalpodautoscalers/${DEPLOY}`) {
          if (req.method === 'PATCH') state.hpaMin = (body as { spec: { minReplicas: number } }).spec.minReplicas;
          return json(200, hpa());
        }
        if (url.pathname === `/api/v1/namespaces/${NS}/pods` && req.method === 'GET') return json(200, { apiVersion: 'v1', kind: 'PodList', metadata: {}, items: state.pods.map(pod) });
        const eviction = /^\/api\/v1\/namespaces\/gw\/pods\/([^/]+)\/eviction$/.exec(url.pathname);
        if (eviction !== null && req.method === 'POST') {
          if (state.refuseNextEviction) {
            state.refuseNextEviction = false;
            return json(429, { apiVersion: 'v1', kind: 'Status', status: 'Failure', reason: 'TooManyRequests', code: 429, message: 'Cannot evict pod as it would violate the pod disruption budget.' });
          }
          // The Deployment replaces an evicted pod at once (a ready replacement).
          state.pods = [...state.pods.filter((p) => p !== eviction[1]), `dp-new-${(state.next += 1)}`];
          return json(201, { apiVersion: 'v1', kind: 'Status', status: 'Success', code: 201 });
        }
        return json(404, { apiVersion: 'v1', kind: 'Status', status: 'Failure', code: 404, reason: 'NotFound' });
      });
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    // Plain HTTP on loopback: client-node allows it only with TLS verification declared off.
    writeFileSync(
      path.join(dir.path, 'kubeconfig'),
      `apiVersion: v1
kind: Config
clusters: [{ name: fake, cluster: { server: "http://127.0.0.1:${(api.address() as AddressInfo).port}", insecure-skip-tls-verify: true } }]
users: [{ name: runbooks, user: { token: fake-service-account-token } }]
contexts: [{ name: fake, context: { cluster: fake, user: runbooks, namespace: ${NS} } }]
current-context: fake
`,
    );
    events = signedRedisBus(REDIS_URL, prefix, CLUSTER_TOKEN, 'k8s-events');
    cp = await startControlPlaneProcess({ env: { ...ADMIN_ENV, REDIS_URL, CLUSTER_TOKEN, REDIS_CHANNEL_PREFIX: prefix, API_RATE_LIMIT_ADMIN_MAX: '100000' } });
    call = caller(cp);
    token = await login(call, ADMIN);
  });

  after(async () => {
    await cp?.stop();
    await events?.close();
    await new Promise((resolve) => api?.close(resolve));
    dir.remove();
  });

  test('outside Kubernetes (no kubeconfig, no service account) the action fails with a clear reason', async () => {
    await settings({ kubernetes: target(null) });
    assert.equal((await rest('POST', '/api/runbooks', { name: 'scale-outside', trigger: { eventType: 'TEST_SCALE_OUTSIDE' }, actions: [{ type: 'SCALE_RESOURCE', replicas: 3 }], safety: { requiresApproval: false } })).status, 201);
    const done = await settled(await fire('TEST_SCALE_OUTSIDE'), (e) => e.status !== 'running');
    assert.equal(done.status, 'failed');
    assert.equal(done.actions[0]?.outcome?.code, 'NOT_IN_KUBERNETES');
    assert.equal(calls.length, 0);
  });

  test('validation names the bad Kubernetes parameters', async () => {
    const res = await call('POST', '/api/runbooks', { token, body: { name: 'bad-k8s', trigger: { eventType: 'X' }, actions: [{ type: 'SCALE_RESOURCE', replicas: 2, delta: 1 }, { type: 'RESTART_POD', graceful: 'yes', drainTimeout: 0 }] } });
    assert.equal(res.status, 400);
    const fields = (res.json() as { details: { fields: Array<{ field: string }> } }).details.fields.map((f) => f.field).sort();
    assert.deepEqual(fields, ['actions[0].replicas', 'actions[1].drainTimeout', 'actions[1].graceful']);
  });

  test('SCALE_RESOURCE clamps to the maximum, raises the HPA minimum first, and rollback puts both back: exactly these calls', async () => {
    await settings({ kubernetes: target(path.join(dir.path, 'kubeconfig')) });
    calls.length = 0;
    assert.equal((await rest('POST', '/api/runbooks', { name: 'scale', trigger: { eventType: 'TEST_SCALE', conditions: { resourceType: 'deployment' } }, actions: [{ type: 'SCALE_RESOURCE', replicas: 9 }], safety: { requiresApproval: false, rollbackAfterMinutes: 0.05 } })).status, 201);
    const eventId = await fire('TEST_SCALE');
    const ran = await settled(eventId, (e) => e.status !== 'running');
    assert.equal(ran.status, 'succeeded', JSON.stringify(ran));
    assert.match(ran.actions[0]?.outcome?.message ?? '', /scaled from 2 to 4 \(HPA minimum raised from 2 to 4\)/);
    await settled(eventId, (e) => e.status === 'rolled_back');
    const scalePath = `/apis/apps/v1/namespaces/${NS}/deployments/${DEPLOY}/scale`;
    const hpaPath = `/apis/autoscaling/v2/namespaces/${NS}/horizontalpodautoscalers/${DEPLOY}`;
    assert.deepEqual(calls, [
      { method: 'GET', path: scalePath, body: null },
      { method: 'GET', path: hpaPath, body: null },
      { method: 'PATCH', path: hpaPath, body: { spec: { minReplicas: 4 } } },
      { method: 'PATCH', path: scalePath, body: { spec: { replicas: 4 } } },
      { method: 'PATCH', path: scalePath, body: { spec: { replicas: 2 } } },
      { method: 'PATCH', path: hpaPath, body: { spec: { minReplicas: 2 } } },
    ]);
    assert.deepEqual([state.replicas, state.hpaMin], [2, 2]);
    assertAllowedByRole(calls);
  });

  test('RESTART_POD evicts one pod at a time, retries an eviction the disruption budget refuses, waits for each replacement', async () => {
    calls.length = 0;
    state.refuseNextEviction = true;
    assert.equal((await rest('POST', '/api/runbooks', { name: 'restart', trigger: { eventType: 'TEST_RESTART' }, actions: [{ type: 'RESTART_POD', graceful: true, drainTimeout: 30 }], safety: { requiresApproval: false } })).status, 201);
    const done = await settled(await fire('TEST_RESTART'), (e) => e.status !== 'running');
    assert.equal(done.status, 'succeeded', JSON.stringify(done));
    const podsPath = `/api/v1/namespaces/${NS}/pods?labelSelector=${encodeURIComponent('app.kubernetes.io/component=data-plane')}`;
    const evict = (pod: string) => ({ method: 'POST', path: `/api/v1/namespaces/${NS}/pods/${pod}/eviction`, body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: pod, namespace: NS } } });
    assert.deepEqual(calls, [{ method: 'GET', path: podsPath, body: null }, evict('dp-a'), evict('dp-a'), { method: 'GET', path: podsPath, body: null }, evict('dp-b'), { method: 'GET', path: podsPath, body: null }]);
    assertAllowedByRole(calls);
  });
});

function assertAllowedByRole(made: Call_[]): void {
  assert.deepEqual(deniedCalls(readRoleRules(ROLE_FILE), made), []);
}
