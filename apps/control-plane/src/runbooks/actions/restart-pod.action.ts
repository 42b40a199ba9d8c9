import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable } from '@nestjs/common';
import type { FieldError } from '@gateway/route-model';
import { KubernetesClusterAdapter, KubernetesUnavailable, type KubernetesCluster } from '../kubernetes/kubernetes-cluster.adapter';
import { fieldError, intParam, unknownParams, type ActionContext, type ActionOutcome, type RunbookAction, type RunbookActionSpec } from '../runbook-action';
import { RunbooksSettingsReader } from '../runbooks-settings.reader';

const PARAMS = ['graceful', 'drainTimeout'];
const POLL_MS = 500;
const DEFAULT_DRAIN_SECONDS = 120;

/**
 * RESTART_POD `{ graceful?: true, drainTimeout?: seconds }`: every pod of the data-plane
 * Deployment through the Eviction API, one at a time, so PodDisruptionBudgets are respected (an
 * eviction they refuse is retried until drainTimeout). Graceful waits, after each eviction, until
 * as many pods are ready as before; not graceful only waits for the budget. Nothing to undo.
 */
@Injectable()
export class RestartPodAction implements RunbookAction {
  readonly type = 'RESTART_POD';

  constructor(
    private readonly kubernetes: KubernetesClusterAdapter,
    private readonly settings: RunbooksSettingsReader,
  ) {}

  validate(action: RunbookActionSpec, field: string): FieldError[] {
    const errors = [...unknownParams(action, field, PARAMS), ...intParam(action, 'drainTimeout', field, { min: 1, max: 3600, optional: true })];
    if (action['graceful'] !== undefined && typeof action['graceful'] !== 'boolean') errors.push(fieldError(`${field}.graceful`, `${field}.graceful must be a boolean`));
    return errors;
  }

  describe(action: RunbookActionSpec): string {
    const { deployment } = this.settings.current().kubernetes;
    return `restart the pods of Deployment ${deployment} one at a time through the Eviction API${action['graceful'] === false ? '' : ', waiting for each replacement to be ready'}`;
  }

  async run(action: RunbookActionSpec, _context: ActionContext): Promise<ActionOutcome> {
    const target = this.settings.current().kubernetes;
    const graceful = action['graceful'] !== false;
    const deadline = Date.now() + ((action['drainTimeout'] as number | undefined) ?? DEFAULT_DRAIN_SECONDS) * 1000;
    const evicted: string[] = [];
    try {
      const cluster = await this.kubernetes.connect(target);
      const pods = (await cluster.listPods()).filter((p) => !p.terminating);
      const ready = pods.filter((p) => p.ready).length;
      for (const pod of pods) {
        if (!(await this.evictWithin(cluster, pod.name, deadline))) {
          return { status: 'failed', code: 'DISRUPTION_BUDGET', message: `a PodDisruptionBudget kept refusing the eviction of ${pod.name} until drainTimeout`, details: { evicted } };
        }
        evicted.push(pod.name);
        if (graceful && !(await this.readyAgain(cluster, new Set(evicted), ready, deadline))) {
          return { status: 'failed', code: 'DRAIN_TIMEOUT', message: `no ready replacement for ${pod.name} within drainTimeout`, details: { evicted } };
        }
      }
      return { status: 'succeeded', message: `restarted ${evicted.length} pod(s) of ${target.deployment}: ${evicted.join(', ')}`, details: { evicted } };
    } catch (error) {
      if (error instanceof KubernetesUnavailable) return { status: 'failed', code: error.code, message: error.message, details: { evicted } };
      throw error;
    }
  }

  private async evictWithin(cluster: KubernetesCluster, pod: string, deadline: number): Promise<boolean> {
    for (;;) {
      if ((await cluster.evict(pod)) === 'evicted') return true;
      if (Date.now() + POLL_MS > deadline) return false;
      await sleep(POLL_MS);
    }
  }

  /** Until as many pods as before are ready, none of them one this action evicted. */
  private async readyAgain(cluster: KubernetesCluster, evicted: ReadonlySet<string>, wanted: number, deadline: number): Promise<boolean> {
    for (;;) {
      const pods = await cluster.listPods();
      if (pods.filter((p) => p.ready && !p.terminating && !evicted.has(p.name)).length >= wanted) return true;
      if (Date.now() + POLL_MS > deadline) return false;
      await sleep(POLL_MS);
    }
  }
}
