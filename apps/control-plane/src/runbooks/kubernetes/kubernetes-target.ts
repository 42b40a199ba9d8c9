/** Which Deployment the Kubernetes actions work on, and how far they may scale it (settings `runbooks.kubernetes`). */
export interface KubernetesTarget {
  /** A kubeconfig file; null: the in-cluster service account. */
  kubeconfig: string | null;
  namespace: string;
  deployment: string;
  /** The HorizontalPodAutoscaler that manages the Deployment, if any (its minimum is raised). */
  hpa: string | null;
  /** Label selector of the Deployment's pods (RESTART_POD). */
  podSelector: string;
  minReplicas: number;
  maxReplicas: number;
}

export const KUBERNETES_TARGET_DEFAULTS: KubernetesTarget = {
  kubeconfig: null,
  namespace: 'default',
  deployment: 'gateway-data-plane',
  hpa: 'gateway-data-plane',
  podSelector: 'app.kubernetes.io/name=gateway,app.kubernetes.io/component=data-plane',
  minReplicas: 1,
  maxReplicas: 20,
};
