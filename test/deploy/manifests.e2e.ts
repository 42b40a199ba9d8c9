import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { clusterSecrets, controlPlaneEnv, EMPTY_PROXY_CONFIG, REPO_ROOT, request, startGatewayProcess, type GatewayProcess } from '@gateway/testing';
import { renderKustomization } from './kustomize';
import { describeObject, schemaProblems, type KubernetesObject } from './kubernetes-schema';
import { policyProblems, probeUses } from './manifest-policy';

/*
 * deploy/ validated offline, as CI can: each overlay rendered with `kubectl kustomize`, every
 * object checked against its Kubernetes API schema (kubernetes-models) with unknown fields refused,
 * our own rules (probes, limits, securityContext, no inline secret values, references resolve),
 * and every probe path asked of a running gateway of the probed role.
 */
const OVERLAYS = ['default', 'production'] as const;

function rendered(overlay: string): KubernetesObject[] {
  return renderKustomization(path.join(REPO_ROOT, 'deploy', 'overlays', overlay));
}

/** Metric names in the dashboard's PromQL (every selector is written `name{...}`). */
function dashboardMetrics(json: string): string[] {
  const dashboard = JSON.parse(json) as { panels: Array<{ targets: Array<{ expr: string }> }> };
  const names = dashboard.panels.flatMap((panel) => panel.targets.flatMap((target) => [...target.expr.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\{/g)].map((m) => m[1] as string)));
  return [...new Set(names)].sort();
}

function deploymentCopy(objects: readonly KubernetesObject[], name: string): KubernetesObject & { spec: { template: { spec: { containers: Array<Record<string, unknown>> } } } } {
  const deployment = objects.find((o) => o.kind === 'Deployment' && o.metadata?.name === name);
  assert.ok(deployment !== undefined, `${name} is rendered`);
  return structuredClone(deployment) as ReturnType<typeof deploymentCopy>;
}

describe('deploy/ manifests', () => {
  for (const overlay of OVERLAYS) {
    describe(`overlay ${overlay}`, () => {
      const objects = rendered(overlay);

      it('renders both planes and everything around them', () => {
        const kinds = objects.map(describeObject).sort();
        for (const expected of [
          'Deployment/gateway-control-plane', 'Deployment/gateway-data-plane', 'Service/gateway-control-plane', 'Service/gateway-data-plane',
          'HorizontalPodAutoscaler/gateway-data-plane', 'PodDisruptionBudget/gateway-data-plane', 'PodDisruptionBudget/gateway-control-plane', 'NetworkPolicy/gateway-control-plane',
          'ServiceAccount/gateway-control-plane', 'Role/gateway-control-plane', 'RoleBinding/gateway-control-plane',
        ]) assert.ok(kinds.includes(expected), `${expected} in ${kinds.join(', ')}`);
        // proxy.yml as a generated ConfigMap: the hash suffix rolls the control plane on a change.
        assert.ok(objects.some((o) => o.kind === 'ConfigMap' && /^gateway-proxy-config-[a-z0-9]{10}$/.test(String(o.metadata?.name))));
      });

      it('every object matches its Kubernetes API schema, with no unknown field', () => {
        assert.deepEqual(objects.flatMap(schemaProblems), []);
      });

      it('every workload follows our rules (probes, limits, securityContext, secrets, references)', () => {
        assert.deepEqual(policyProblems(objects), []);
      });
    });
  }

  it('the production overlay adds the ServiceMonitor and keeps two or more control planes', () => {
    const objects = rendered('production');
    assert.ok(objects.some((o) => o.kind === 'ServiceMonitor'));
    const replicas = (deploymentCopy(objects, 'gateway-control-plane') as unknown as { spec: { replicas: number } }).spec.replicas;
    assert.ok(replicas >= 2, `control-plane replicas: ${replicas}`);
    assert.equal((deploymentCopy(rendered('default'), 'gateway-control-plane') as unknown as { spec: { replicas: number } }).spec.replicas, 2);
  });

  describe('goes red', () => {
    const objects = rendered('default');

    it('on a container without a readiness probe', () => {
      const broken = deploymentCopy(objects, 'gateway-data-plane');
      delete broken.spec.template.spec.containers[0]?.['readinessProbe'];
      assert.deepEqual(policyProblems([...objects.filter((o) => describeObject(o) !== describeObject(broken)), broken]), [
        'Deployment/gateway-data-plane container data-plane: readinessProbe is missing (an HTTP probe is required)',
      ]);
    });

    it('on a grace period shorter than preStop + drain delay + drain timeout + margin, on either plane', () => {
      const problems = ['gateway-data-plane', 'gateway-control-plane'].map((name) => {
        const broken = deploymentCopy(objects, name);
        const container = broken.spec.template.spec.containers[0] as { env: Array<{ name: string; value?: string }> };
        // One second more drain than the manifest's grace period leaves room for.
        const timeout = container.env.find((v) => v.name === 'DRAIN_TIMEOUT_SECONDS') as { value: string };
        timeout.value = String(Number(timeout.value) + (broken.spec.template.spec as unknown as { terminationGracePeriodSeconds: number }).terminationGracePeriodSeconds);
        return policyProblems([...objects.filter((o) => describeObject(o) !== describeObject(broken)), broken]);
      });
      for (const [i, name] of ['gateway-data-plane', 'gateway-control-plane'].entries()) {
        assert.equal(problems[i]?.length, 1, JSON.stringify(problems[i]));
        assert.match(problems[i]?.[0] ?? '', new RegExp(`^Deployment/${name} container .*: terminationGracePeriodSeconds \\(\\d+\\) is below preStop sleep \\(5\\) \\+ DRAIN_DELAY_SECONDS`));
      }
    });

    it('on a misspelt field the API schema alone would accept', () => {
      const broken = deploymentCopy(objects, 'gateway-control-plane');
      const container = broken.spec.template.spec.containers[0] as Record<string, unknown>;
      container['readinesProbe'] = container['readinessProbe'];
      assert.deepEqual(schemaProblems(broken), [
        'Deployment/gateway-control-plane: /spec/template/spec/containers/0/readinesProbe is not a field of Deployment (unknown to the API schema)',
      ]);
    });

    it('on a value of the wrong type', () => {
      const broken = deploymentCopy(objects, 'gateway-control-plane') as unknown as KubernetesObject & { spec: { replicas: unknown } };
      broken.spec.replicas = 'two';
      assert.match(schemaProblems(broken).join('\n'), /\/spec\/replicas must be integer/);
    });

    it('on a readiness probe on /health/ready and a startup probe on /health/serving', () => {
      const broken = deploymentCopy(objects, 'gateway-data-plane');
      const container = broken.spec.template.spec.containers[0] as Record<string, { httpGet: { path: string } }>;
      (container['readinessProbe'] as { httpGet: { path: string } }).httpGet.path = '/health/ready';
      (container['startupProbe'] as { httpGet: { path: string } }).httpGet.path = '/health/serving';
      assert.deepEqual(policyProblems([...objects.filter((o) => describeObject(o) !== describeObject(broken)), broken]), [
        'Deployment/gateway-data-plane container data-plane: readinessProbe must not be /health/ready (it follows dependencies and would empty the Service in an outage; use /health/serving)',
        'Deployment/gateway-data-plane container data-plane: startupProbe must be /health/live (it restarts the container, which fixes no dependency)',
      ]);
    });

    it('on a Service whose targetPort no selected container declares', () => {
      const service = structuredClone(objects.find((o) => describeObject(o) === 'Service/gateway-data-plane')) as KubernetesObject & { spec: { ports: Array<{ targetPort: string }> } };
      (service.spec.ports[0] as { targetPort: string }).targetPort = 'proxy';
      assert.deepEqual(policyProblems([...objects.filter((o) => describeObject(o) !== describeObject(service)), service]), [
        'Service/gateway-data-plane: targetPort proxy is not a container port of the pods it selects',
      ]);
    });

    it('on a Secret with inline values, and on a secret variable given inline', () => {
      const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'gateway-secrets' }, stringData: { JWT_SECRET: 'x'.repeat(32) } } as KubernetesObject;
      const broken = deploymentCopy(objects, 'gateway-control-plane');
      const env = broken.spec.template.spec.containers[0]?.['env'] as Array<Record<string, unknown>>;
      const jwt = env.find((v) => v['name'] === 'JWT_SECRET') as Record<string, unknown>;
      delete jwt['valueFrom'];
      jwt['value'] = 'x'.repeat(32);
      assert.deepEqual(policyProblems([...objects.filter((o) => describeObject(o) !== describeObject(broken)), broken, secret]), [
        'Deployment/gateway-control-plane container control-plane: env JWT_SECRET must come from a Secret (valueFrom.secretKeyRef), never an inline value',
        'Secret/gateway-secrets: a Secret with inline stringData (create it out of band; reference it)',
      ]);
    });
  });

  describe('against running gateways of each role', () => {
    const uses = probeUses(rendered('default'));
    const planes = new Map<string, GatewayProcess>();

    before(async () => {
      const roles = [...new Set(uses.map((use) => use.role))].sort();
      assert.deepEqual(roles, ['control-plane', 'data-plane']);
      // The data plane on proxy.yml alone answers its probes as it does when following.
      planes.set('data-plane', await startGatewayProcess({ role: 'data-plane', config: EMPTY_PROXY_CONFIG }));
      planes.set('control-plane', await startGatewayProcess({ role: 'control-plane', config: EMPTY_PROXY_CONFIG, env: controlPlaneEnv(clusterSecrets('manifests'), undefined), startTimeoutMs: 60_000 }));
    });
    after(async () => {
      await Promise.all([...planes.values()].map((plane) => plane.stop()));
    });

    it('every liveness, readiness and startup probe path answers 200 on its role', async () => {
      assert.equal(uses.length, 6);
      const answers = await Promise.all(uses.map(async (use) => {
        const plane = planes.get(use.role) as GatewayProcess;
        return `${use.workload} ${use.probe} ${use.path} ${(await request(`${plane.url}${use.path}`, { timeoutMs: 5000 })).status}`;
      }));
      assert.deepEqual(answers, uses.map((use) => `${use.workload} ${use.probe} ${use.path} 200`));
      // A path the gateway does not serve would not answer 200: the check can fail.
      assert.notEqual((await request(`${(planes.get('data-plane') as GatewayProcess).url}/health/servin`, { timeoutMs: 5000 })).status, 200);
    });

    it('every metric the Grafana dashboard queries is exposed by a plane', async () => {
      const exposed = new Set<string>();
      for (const plane of planes.values()) {
        const text = (await request(`${plane.url}/metrics`, { timeoutMs: 5000 })).text;
        for (const match of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
          const [, name, type] = match as unknown as [string, string, string];
          exposed.add(name);
          if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) exposed.add(`${name}${suffix}`);
        }
      }
      const queried = dashboardMetrics(readFileSync(path.join(REPO_ROOT, 'deploy', 'components', 'grafana-dashboard', 'gateway-dashboard.json'), 'utf8'));
      assert.ok(queried.length >= 15, queried.join(', '));
      assert.deepEqual(queried.filter((name) => !exposed.has(name)), []);
    });
  });
});
