import { existsSync } from 'node:fs';
import { Injectable } from '@nestjs/common';
import type { KubernetesTarget } from './kubernetes-target';

/** A pod of the Deployment as RESTART_POD sees it. */
export interface PodState {
  name: string;
  ready: boolean;
  terminating: boolean;
}

/** The few Kubernetes calls the actions make, each allowed by deploy/base/control-plane-role.yaml. */
export interface KubernetesCluster {
  readScale(): Promise<number>;
  patchScale(replicas: number): Promise<void>;
  /** The HPA's minReplicas; undefined when the target names none or it does not exist. */
  readHpaMin(): Promise<number | undefined>;
  patchHpaMin(minReplicas: number): Promise<void>;
  listPods(): Promise<PodState[]>;
  /** `blocked`: a PodDisruptionBudget refuses it now (HTTP 429). */
  evict(pod: string): Promise<'evicted' | 'blocked'>;
}

/** A reason the actions cannot reach Kubernetes, with a stable code for the execution record. */
export class KubernetesUnavailable extends Error {
  constructor(
    readonly code: 'NOT_IN_KUBERNETES' | 'KUBERNETES_CLIENT_UNAVAILABLE' | 'KUBERNETES_API_ERROR',
    message: string,
  ) {
    super(message);
  }
}

const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';
const MERGE_PATCH = 'application/merge-patch+json';

type Client = typeof import('@kubernetes/client-node');

function statusOf(error: unknown): number | undefined {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'number' ? code : undefined;
}

/**
 * @kubernetes/client-node 1.x is ESM-only (2.x needs Node 22): it is loaded here with import(),
 * which `module: nodenext` keeps as a real dynamic import in the built CommonJS. The credentials
 * are a kubeconfig file when the settings name one, else the in-cluster service account; outside
 * a cluster without a kubeconfig the actions fail with NOT_IN_KUBERNETES.
 */
@Injectable()
export class KubernetesClusterAdapter {
  private client: Promise<Client> | undefined;

  /** The client module (a test checks that the built CommonJS loads it). */
  load(): Promise<Client> {
    this.client ??= import('@kubernetes/client-node');
    return this.client;
  }

  async connect(target: KubernetesTarget): Promise<KubernetesCluster> {
    if (target.kubeconfig === null && !existsSync(SERVICE_ACCOUNT_TOKEN)) {
      throw new KubernetesUnavailable('NOT_IN_KUBERNETES', 'not running in Kubernetes (no service account token) and no kubeconfig in settings runbooks.kubernetes.kubeconfig');
    }
    let k8s: Client;
    try {
      k8s = await this.load();
    } catch (error) {
      throw new KubernetesUnavailable('KUBERNETES_CLIENT_UNAVAILABLE', `cannot load @kubernetes/client-node: ${(error as Error).message}`);
    }
    const config = new k8s.KubeConfig();
    try {
      if (target.kubeconfig === null) config.loadFromCluster();
      else config.loadFromFile(target.kubeconfig);
    } catch (error) {
      throw new KubernetesUnavailable('NOT_IN_KUBERNETES', `cannot read the Kubernetes credentials: ${(error as Error).message}`);
    }
    const apps = config.makeApiClient(k8s.AppsV1Api);
    const core = config.makeApiClient(k8s.CoreV1Api);
    const autoscaling = config.makeApiClient(k8s.AutoscalingV2Api);
    const merge = k8s.setHeaderOptions('Content-Type', MERGE_PATCH);
    const { namespace, deployment, hpa, podSelector } = target;
    const call = async <T>(what: string, run: () => Promise<T>): Promise<T> => {
      try {
        return await run();
      } catch (error) {
        throw new KubernetesUnavailable('KUBERNETES_API_ERROR', `${what} failed: ${statusOf(error) === undefined ? (error as Error).message : `HTTP ${statusOf(error)}`}`);
      }
    };
    return {
      readScale: async () => (await call('reading the Deployment scale', () => apps.readNamespacedDeploymentScale({ name: deployment, namespace }))).spec?.replicas ?? 0,
      patchScale: async (replicas) => {
        await call('scaling the Deployment', () => apps.patchNamespacedDeploymentScale({ name: deployment, namespace, body: { spec: { replicas } } }, merge));
      },
      readHpaMin: async () => {
        if (hpa === null) return undefined;
        try {
          return (await autoscaling.readNamespacedHorizontalPodAutoscaler({ name: hpa, namespace })).spec?.minReplicas ?? 1;
        } catch (error) {
          if (statusOf(error) === 404) return undefined;
          throw new KubernetesUnavailable('KUBERNETES_API_ERROR', `reading the HorizontalPodAutoscaler failed (HTTP ${statusOf(error) ?? '?'})`);
        }
      },
      patchHpaMin: async (minReplicas) => {
        await call('raising the HorizontalPodAutoscaler minimum', () => autoscaling.patchNamespacedHorizontalPodAutoscaler({ name: hpa as string, namespace, body: { spec: { minReplicas } } }, merge));
      },
      listPods: async () => {
        const list = await call('listing the pods', () => core.listNamespacedPod({ namespace, labelSelector: podSelector }));
        return list.items.map((pod) => ({
          name: pod.metadata?.name ?? '',
          ready: pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true,
          terminating: pod.metadata?.deletionTimestamp !== undefined,
        }));
      },
      evict: async (pod) => {
        try {
          await core.createNamespacedPodEviction({ name: pod, namespace, body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: pod, namespace } } });
          return 'evicted';
        } catch (error) {
          if (statusOf(error) === 429) return 'blocked';
          throw new KubernetesUnavailable('KUBERNETES_API_ERROR', `evicting pod ${pod} failed (HTTP ${statusOf(error) ?? '?'})`);
        }
      },
    };
  }
}
