import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { Role, RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1';
import { ConfigMap, Secret, Service, ServiceAccount } from 'kubernetes-models/v1';

/** A rendered Kubernetes object, as parsed from YAML. */
export type KubernetesObject = { apiVersion?: unknown; kind?: unknown; metadata?: { name?: unknown } } & Record<string, unknown>;

interface ValidatingModel {
  validate(): void;
}

/** The kinds deploy/ may render, each with its kubernetes-models class (its API schema). */
const MODELS: Readonly<Record<string, new (data: never) => ValidatingModel>> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'v1/ServiceAccount': ServiceAccount,
  'apps/v1/Deployment': Deployment,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'rbac.authorization.k8s.io/v1/Role': Role,
  'rbac.authorization.k8s.io/v1/RoleBinding': RoleBinding,
  'monitoring.coreos.com/v1/ServiceMonitor': ServiceMonitor,
};

interface SchemaError {
  instancePath: string;
  message?: string;
}

export function describeObject(object: KubernetesObject): string {
  return `${String(object.kind)}/${String(object.metadata?.name)}`;
}

/**
 * Every problem the object's API schema finds, then every field the schema does not know.
 * kubernetes-models accepts unknown fields (a `readinesProbe` typo passes), and its schemas are
 * compiled validators, not JSON to walk; so each field is probed: put a value no schema accepts
 * there, and the field is known exactly when the validator then complains at that path. Maps
 * (labels, ConfigMap data) are known key by key through their value schema.
 */
export function schemaProblems(object: KubernetesObject): string[] {
  const name = describeObject(object);
  const Model = MODELS[`${String(object.apiVersion)}/${String(object.kind)}`];
  if (Model === undefined) return [`${name}: no API schema for ${String(object.apiVersion)} ${String(object.kind)} (add its model to test/deploy/kubernetes-schema.ts)`];
  const errorsOf = (data: unknown): SchemaError[] => {
    try {
      new Model(data as never).validate();
      return [];
    } catch (error) {
      const errors = (error as { errors?: SchemaError[] }).errors;
      if (errors === undefined) throw error;
      return errors;
    }
  };
  const invalid = errorsOf(object).map((e) => `${name}: ${e.instancePath || '/'} ${e.message ?? 'is invalid'}`);
  if (invalid.length > 0) return invalid;
  return unknownFields(object, [], errorsOf).map((pointer) => `${name}: ${pointer} is not a field of ${String(object.kind)} (unknown to the API schema)`);
}

/** A value of no JSON type: every type, enum and format check fails on it. */
const PROBE = Symbol('not a field');

function unknownFields(root: KubernetesObject, at: readonly (string | number)[], errorsOf: (data: unknown) => SchemaError[]): string[] {
  const value = valueAt(root, at);
  const found: string[] = [];
  const children: Array<string | number> = Array.isArray(value) ? value.map((_, i) => i) : value !== null && typeof value === 'object' ? Object.keys(value) : [];
  for (const key of children) {
    const path = [...at, key];
    const pointer = jsonPointer(path);
    const probed = structuredCloneWith(root, path, PROBE);
    if (!errorsOf(probed).some((e) => e.instancePath === pointer || e.instancePath.startsWith(`${pointer}/`))) {
      found.push(pointer);
      continue;
    }
    found.push(...unknownFields(root, path, errorsOf));
  }
  return found;
}

function valueAt(root: unknown, path: readonly (string | number)[]): unknown {
  return path.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], root);
}

/** A deep copy of `root` with `replacement` at `path` (the parsed YAML is plain JSON data). */
function structuredCloneWith(root: KubernetesObject, path: readonly (string | number)[], replacement: unknown): unknown {
  const copy = structuredClone(root) as Record<string | number, unknown>;
  const parent = valueAt(copy, path.slice(0, -1)) as Record<string | number, unknown>;
  parent[path[path.length - 1] as string | number] = replacement;
  return copy;
}

function jsonPointer(path: readonly (string | number)[]): string {
  return path.map((key) => `/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}
