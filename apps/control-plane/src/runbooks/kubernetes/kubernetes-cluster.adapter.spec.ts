import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KubernetesClusterAdapter, KubernetesUnavailable } from './kubernetes-cluster.adapter';
import { KUBERNETES_TARGET_DEFAULTS } from './kubernetes-target';

// This spec runs as the built CommonJS (dist/), so it proves that CommonJS loads the ESM-only client.
test('the built CommonJS loads the ESM-only @kubernetes/client-node 1.x with import()', async () => {
  assert.equal(typeof module, 'object', 'running as CommonJS');
  const k8s = await new KubernetesClusterAdapter().load();
  assert.equal(typeof k8s.KubeConfig, 'function');
  assert.equal(typeof k8s.AppsV1Api, 'function');
});

test('outside Kubernetes, without a kubeconfig: NOT_IN_KUBERNETES, before any call', async () => {
  await assert.rejects(
    new KubernetesClusterAdapter().connect({ ...KUBERNETES_TARGET_DEFAULTS, kubeconfig: null }),
    (error: unknown) => error instanceof KubernetesUnavailable && error.code === 'NOT_IN_KUBERNETES',
  );
});

test('a kubeconfig that cannot be read is a clear failure too', async () => {
  await assert.rejects(
    new KubernetesClusterAdapter().connect({ ...KUBERNETES_TARGET_DEFAULTS, kubeconfig: '/nonexistent/kubeconfig' }),
    (error: unknown) => error instanceof KubernetesUnavailable && error.code === 'NOT_IN_KUBERNETES' && /kubeconfig|credentials/.test(error.message),
  );
});
