import { describeObject, type KubernetesObject } from './kubernetes-schema';

/*
 * Our own rules for what deploy/ renders, beyond the API schema: what a reviewer of a production
 * manifest checks by hand. Each rule returns messages naming the object and the field.
 */

/** Environment variables that carry secrets: only ever from a Secret, never a literal value. */
export const SECRET_VARIABLES = ['JWT_SECRET', 'CLUSTER_TOKEN', 'API_KEY_SECRET', 'SETTINGS_ENCRYPTION_KEY', 'DATABASE_URL', 'REDIS_URL', 'ADMIN_PASSWORD'] as const;

const PROBES = ['livenessProbe', 'readinessProbe', 'startupProbe'] as const;

/** Spec 4.2's /health/ready follows upstream breakers and dependencies: never a kubelet probe (docs/deployment.md). */
const DEPENDENCY_HEALTH_PATH = '/health/ready';

/**
 * A failed startup or liveness probe restarts the container, and a restart fixes no dependency:
 * both ask only whether the event loop answers.
 */
const RESTARTING_PROBE_PATH = '/health/live';

type Json = Record<string, unknown>;

interface Container extends Json {
  name: string;
  args?: string[];
  ports?: Array<{ name?: string; containerPort: number }>;
  env?: Array<{ name: string; value?: string; valueFrom?: Json }>;
  resources?: { limits?: Record<string, string>; requests?: Record<string, string> };
  securityContext?: Json;
  lifecycle?: { preStop?: { sleep?: { seconds: number } } };
  image?: string;
}

interface PodSpec extends Json {
  containers: Container[];
  securityContext?: Json;
  serviceAccountName?: string;
  terminationGracePeriodSeconds?: number;
  volumes?: Array<{ name: string; configMap?: { name: string }; secret?: { secretName: string } }>;
}

/** An HTTP probe of a workload, for checking its path against a running gateway. */
export interface ProbeUse {
  readonly workload: string;
  /** `--role` in the container's args. */
  readonly role: string;
  readonly probe: (typeof PROBES)[number];
  readonly path: string;
}

function podTemplate(object: KubernetesObject): { labels: Record<string, string>; annotations: Record<string, string>; spec: PodSpec } | undefined {
  if (object.kind !== 'Deployment') return undefined;
  const template = (object['spec'] as Json)['template'] as { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec: PodSpec };
  return { labels: template.metadata?.labels ?? {}, annotations: template.metadata?.annotations ?? {}, spec: template.spec };
}

function roleOf(container: Container): string {
  const args = container.args ?? [];
  const index = args.indexOf('--role');
  return index >= 0 ? (args[index + 1] ?? 'all') : 'all';
}

export function probeUses(objects: readonly KubernetesObject[]): ProbeUse[] {
  const uses: ProbeUse[] = [];
  for (const object of objects) {
    const pod = podTemplate(object);
    for (const container of pod?.spec.containers ?? []) {
      for (const probe of PROBES) {
        const path = ((container[probe] as Json | undefined)?.['httpGet'] as { path?: string } | undefined)?.path;
        if (path !== undefined) uses.push({ workload: describeObject(object), role: roleOf(container), probe, path });
      }
    }
  }
  return uses;
}

/** Every rule over the whole rendered set (some rules relate objects to each other). */
export function policyProblems(objects: readonly KubernetesObject[]): string[] {
  return [...objects.flatMap((object) => [...workloadProblems(object), ...secretProblems(object)]), ...referenceProblems(objects)];
}

function workloadProblems(object: KubernetesObject): string[] {
  const pod = podTemplate(object);
  if (pod === undefined) return [];
  const name = describeObject(object);
  const problems: string[] = [];
  const podSecurity = pod.spec.securityContext ?? {};
  if (pod.annotations['prometheus.io/scrape'] !== 'true' || pod.annotations['prometheus.io/path'] !== '/metrics') problems.push(`${name}: the pod template needs prometheus.io/scrape "true" and prometheus.io/path /metrics`);
  for (const container of pod.spec.containers) {
    const where = `${name} container ${container.name}`;
    const portNames = new Set((container.ports ?? []).map((p) => p.name));
    for (const probe of PROBES) {
      const spec = container[probe] as Json | undefined;
      const httpGet = spec?.['httpGet'] as { path?: string; port?: string | number } | undefined;
      if (httpGet?.path === undefined) {
        problems.push(`${where}: ${probe} is missing (an HTTP probe is required)`);
        continue;
      }
      if (typeof httpGet.port === 'string' && !portNames.has(httpGet.port)) problems.push(`${where}: ${probe} uses port ${httpGet.port}, which the container does not declare`);
      if (probe === 'readinessProbe' && httpGet.path === DEPENDENCY_HEALTH_PATH) problems.push(`${where}: readinessProbe must not be ${DEPENDENCY_HEALTH_PATH} (it follows dependencies and would empty the Service in an outage; use /health/serving)`);
      if (probe !== 'readinessProbe' && httpGet.path !== RESTARTING_PROBE_PATH) problems.push(`${where}: ${probe} must be ${RESTARTING_PROBE_PATH} (it restarts the container, which fixes no dependency)`);
    }
    for (const kind of ['limits', 'requests'] as const) {
      for (const resource of ['cpu', 'memory']) {
        if (container.resources?.[kind]?.[resource] === undefined) problems.push(`${where}: resources.${kind}.${resource} is missing`);
      }
    }
    problems.push(...securityProblems(where, container.securityContext ?? {}, podSecurity));
    for (const variable of container.env ?? []) {
      if ((SECRET_VARIABLES as readonly string[]).includes(variable.name) && variable.valueFrom?.['secretKeyRef'] === undefined) {
        problems.push(`${where}: env ${variable.name} must come from a Secret (valueFrom.secretKeyRef), never an inline value`);
      }
    }
    if (container.image === undefined || !/(@sha256:[0-9a-f]{64}|:[\w][\w.-]*)$/.test(container.image) || container.image.endsWith(':latest')) {
      problems.push(`${where}: image ${String(container.image)} must be pinned by a tag other than latest or a digest`);
    }
    problems.push(...drainBudgetProblems(where, container, pod.spec.terminationGracePeriodSeconds ?? 30));
  }
  return problems;
}

/** The CLI's defaults when the container does not set them (apps/cli start command). */
const DRAIN_DEFAULTS = { DRAIN_DELAY_SECONDS: 5, DRAIN_TIMEOUT_SECONDS: 30 } as const;
/** Seconds left over for the process to exit and the kubelet to notice, beyond the drain itself. */
export const DRAIN_MARGIN_SECONDS = 5;

/**
 * Kubernetes kills the container terminationGracePeriodSeconds after it started the preStop hook:
 * the hook's sleep, the drain delay and the drain timeout must all fit, with a margin, or the
 * in-flight requests the drain waits for are cut by SIGKILL (docs/deployment.md, "Graceful drain").
 */
function drainBudgetProblems(where: string, container: Container, grace: number): string[] {
  const preStop = container.lifecycle?.preStop?.sleep?.seconds ?? 0;
  const setting = (name: keyof typeof DRAIN_DEFAULTS): number => {
    const value = container.env?.find((v) => v.name === name)?.value;
    return value === undefined ? DRAIN_DEFAULTS[name] : Number(value);
  };
  const delay = setting('DRAIN_DELAY_SECONDS');
  const timeout = setting('DRAIN_TIMEOUT_SECONDS');
  const needed = preStop + delay + timeout + DRAIN_MARGIN_SECONDS;
  if (!Number.isFinite(needed)) return [`${where}: DRAIN_DELAY_SECONDS and DRAIN_TIMEOUT_SECONDS must be numbers`];
  if (grace >= needed) return [];
  return [
    `${where}: terminationGracePeriodSeconds (${grace}) is below preStop sleep (${preStop}) + DRAIN_DELAY_SECONDS (${delay}) + DRAIN_TIMEOUT_SECONDS (${timeout}) + margin (${DRAIN_MARGIN_SECONDS}) = ${needed}`,
  ];
}

function securityProblems(where: string, container: Json, pod: Json): string[] {
  const problems: string[] = [];
  const setting = (key: string): unknown => container[key] ?? pod[key];
  if (setting('runAsNonRoot') !== true) problems.push(`${where}: securityContext.runAsNonRoot must be true`);
  if (container['readOnlyRootFilesystem'] !== true) problems.push(`${where}: securityContext.readOnlyRootFilesystem must be true`);
  if (container['allowPrivilegeEscalation'] !== false) problems.push(`${where}: securityContext.allowPrivilegeEscalation must be false`);
  const drop = ((container['capabilities'] as { drop?: string[] } | undefined)?.drop ?? []);
  if (!drop.includes('ALL')) problems.push(`${where}: securityContext.capabilities.drop must include ALL`);
  if ((setting('seccompProfile') as { type?: string } | undefined)?.type !== 'RuntimeDefault') problems.push(`${where}: securityContext.seccompProfile.type must be RuntimeDefault`);
  return problems;
}

/** Secrets are created out of band (docs/deployment.md): a rendered Secret must not carry values. */
function secretProblems(object: KubernetesObject): string[] {
  if (object.kind !== 'Secret') return [];
  return ['data', 'stringData'].filter((field) => object[field] !== undefined).map((field) => `${describeObject(object)}: a Secret with inline ${field} (create it out of band; reference it)`);
}

/** Names that must resolve inside the rendered set: selectors, scale targets, RBAC, volumes. */
function referenceProblems(objects: readonly KubernetesObject[]): string[] {
  const problems: string[] = [];
  const named = (kind: string, name: unknown): boolean => objects.some((o) => o.kind === kind && o.metadata?.name === name);
  const pods = objects.map(podTemplate).filter((p) => p !== undefined);
  const selectsSomePod = (selector: Record<string, string> | undefined): boolean =>
    selector !== undefined && pods.some((pod) => Object.entries(selector).every(([key, value]) => pod.labels[key] === value));
  for (const object of objects) {
    const name = describeObject(object);
    const spec = (object['spec'] ?? {}) as Json;
    switch (object.kind) {
      case 'Service': {
        const selector = spec['selector'] as Record<string, string>;
        if (!selectsSomePod(selector)) problems.push(`${name}: its selector matches no pod template`);
        const selected = pods.filter((pod) => Object.entries(selector).every(([key, value]) => pod.labels[key] === value));
        for (const port of (spec['ports'] ?? []) as Array<{ port: number; targetPort?: string | number }>) {
          const target = port.targetPort ?? port.port;
          const declared = selected.every((pod) => pod.spec.containers.some((c) => (c.ports ?? []).some((p) => p.name === target || p.containerPort === target)));
          if (!declared) problems.push(`${name}: targetPort ${target} is not a container port of the pods it selects`);
        }
        break;
      }
      case 'PodDisruptionBudget':
      case 'NetworkPolicy': {
        const selector = object.kind === 'NetworkPolicy' ? spec['podSelector'] : spec['selector'];
        if (!selectsSomePod((selector as { matchLabels?: Record<string, string> }).matchLabels)) problems.push(`${name}: its selector matches no pod template`);
        break;
      }
      case 'HorizontalPodAutoscaler': {
        const target = spec['scaleTargetRef'] as { kind: string; name: string };
        const deployment = objects.find((o) => o.kind === target.kind && o.metadata?.name === target.name);
        if (deployment === undefined) problems.push(`${name}: scaleTargetRef ${target.kind}/${target.name} is not rendered`);
        else if ((deployment['spec'] as Json)['replicas'] !== undefined) problems.push(`${describeObject(deployment)}: sets replicas although ${name} scales it (every apply would reset the scale)`);
        break;
      }
      case 'Role':
        for (const rule of (object['rules'] ?? []) as Array<{ resources: string[]; resourceNames?: string[] }>) {
          const kinds = rule.resources.map((r) => ({ deployments: 'Deployment', horizontalpodautoscalers: 'HorizontalPodAutoscaler' })[r.split('/')[0] as string]);
          for (const resourceName of rule.resourceNames ?? []) {
            for (const kind of kinds) if (kind !== undefined && !named(kind, resourceName)) problems.push(`${name}: resourceNames ${resourceName} names no rendered ${kind} (a name prefix or suffix in an overlay?)`);
          }
        }
        break;
      case 'RoleBinding': {
        const roleRef = object['roleRef'] as { kind: string; name: string };
        if (!named(roleRef.kind, roleRef.name)) problems.push(`${name}: roleRef ${roleRef.kind}/${roleRef.name} is not rendered`);
        for (const subject of (object['subjects'] ?? []) as Array<{ kind: string; name: string }>) if (!named(subject.kind, subject.name)) problems.push(`${name}: subject ${subject.kind}/${subject.name} is not rendered`);
        break;
      }
      case 'Deployment': {
        const pod = podTemplate(object) as NonNullable<ReturnType<typeof podTemplate>>;
        if (pod.spec.serviceAccountName !== undefined && !named('ServiceAccount', pod.spec.serviceAccountName)) problems.push(`${name}: serviceAccountName ${pod.spec.serviceAccountName} is not rendered`);
        for (const volume of pod.spec.volumes ?? []) if (volume.configMap !== undefined && !named('ConfigMap', volume.configMap.name)) problems.push(`${name}: volume ${volume.name} mounts ConfigMap ${volume.configMap.name}, which is not rendered`);
        break;
      }
    }
  }
  return problems;
}
