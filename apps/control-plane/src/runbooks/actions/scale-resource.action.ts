import { Injectable } from '@nestjs/common';
import type { FieldError } from '@gateway/route-model';
import { KubernetesClusterAdapter, KubernetesUnavailable } from '../kubernetes/kubernetes-cluster.adapter';
import { fieldError, intParam, unknownParams, type ActionContext, type ActionOutcome, type RunbookAction, type RunbookActionSpec } from '../runbook-action';
import { RunbooksSettingsReader } from '../runbooks-settings.reader';

const PARAMS = ['replicas', 'delta'];

/**
 * SCALE_RESOURCE `{ replicas }` or `{ delta }`: the data-plane Deployment's scale, clamped to the
 * settings' minReplicas..maxReplicas. When an HPA manages the Deployment its minimum is raised to
 * the new count first, or the HPA would undo the change. Undo puts both back.
 */
@Injectable()
export class ScaleResourceAction implements RunbookAction {
  readonly type = 'SCALE_RESOURCE';

  constructor(
    private readonly kubernetes: KubernetesClusterAdapter,
    private readonly settings: RunbooksSettingsReader,
  ) {}

  validate(action: RunbookActionSpec, field: string): FieldError[] {
    const errors = [...unknownParams(action, field, PARAMS), ...intParam(action, 'replicas', field, { min: 0, max: 1000, optional: true }), ...intParam(action, 'delta', field, { min: -1000, max: 1000, optional: true })];
    if ((action['replicas'] === undefined) === (action['delta'] === undefined)) errors.push(fieldError(`${field}.replicas`, `${field} needs exactly one of replicas or delta`));
    return errors;
  }

  describe(action: RunbookActionSpec): string {
    const { deployment, minReplicas, maxReplicas } = this.settings.current().kubernetes;
    const how = action['replicas'] !== undefined ? `to ${String(action['replicas'])} replicas` : `by ${String(action['delta'])} replicas`;
    return `scale Deployment ${deployment} ${how} (kept within ${minReplicas}..${maxReplicas})`;
  }

  async run(action: RunbookActionSpec, _context: ActionContext): Promise<ActionOutcome> {
    const target = this.settings.current().kubernetes;
    try {
      const cluster = await this.kubernetes.connect(target);
      const before = await cluster.readScale();
      const wanted = action['replicas'] !== undefined ? (action['replicas'] as number) : before + (action['delta'] as number);
      const replicas = Math.min(target.maxReplicas, Math.max(target.minReplicas, wanted));
      const hpaMin = await cluster.readHpaMin();
      if (hpaMin !== undefined && hpaMin < replicas) await cluster.patchHpaMin(replicas);
      if (replicas !== before) await cluster.patchScale(replicas);
      const raisedHpa = hpaMin !== undefined && hpaMin < replicas;
      return {
        status: 'succeeded',
        message: `Deployment ${target.deployment} scaled from ${before} to ${replicas}${raisedHpa ? ` (HPA minimum raised from ${hpaMin} to ${replicas})` : ''}`,
        details: { before, replicas, wanted, hpaMinBefore: hpaMin ?? null },
        undo: { replicas: before, ...(raisedHpa ? { hpaMin } : {}) },
      };
    } catch (error) {
      if (error instanceof KubernetesUnavailable) return { status: 'failed', code: error.code, message: error.message };
      throw error;
    }
  }

  async undo(outcome: ActionOutcome): Promise<string> {
    const target = this.settings.current().kubernetes;
    const cluster = await this.kubernetes.connect(target);
    const replicas = outcome.undo?.['replicas'] as number;
    const hpaMin = outcome.undo?.['hpaMin'] as number | undefined;
    await cluster.patchScale(replicas);
    if (hpaMin !== undefined) await cluster.patchHpaMin(hpaMin);
    return `Deployment ${target.deployment} scaled back to ${replicas}${hpaMin === undefined ? '' : `, HPA minimum back to ${hpaMin}`}`;
  }
}
