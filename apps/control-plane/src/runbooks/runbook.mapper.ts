import type { RunbookActionSpec } from './runbook-action';
import type { RunbookSafety } from './runbook-definition';
import type { RunbookExecutionEntity } from './runbook-execution.entity';
import type { RunbookEntity } from './runbook.entity';

export interface RunbookResponse {
  id: string;
  name: string;
  enabled: boolean;
  /** Conditions under the names (`confidence.min`). */
  trigger: { eventType: string; conditions: Record<string, unknown> };
  actions: RunbookActionSpec[];
  safety: RunbookSafety;
  createdAt: string;
  updatedAt: string;
}

export function toRunbookResponse(entity: RunbookEntity): RunbookResponse {
  const { confidenceMin, errorRateMin, ...rest } = entity.trigger.conditions;
  const conditions: Record<string, unknown> = { ...rest };
  if (confidenceMin !== undefined) conditions['confidence.min'] = confidenceMin;
  if (errorRateMin !== undefined) conditions['errorRate.min'] = errorRateMin;
  return {
    id: entity.id,
    name: entity.name,
    enabled: entity.enabled,
    trigger: { eventType: entity.trigger.eventType, conditions },
    actions: entity.actions,
    safety: entity.safety,
    createdAt: entity.createdAt.toISOString(),
    updatedAt: entity.updatedAt.toISOString(),
  };
}

export type ExecutionResponse = Omit<RunbookExecutionEntity, 'decidedAt' | 'expiresAt' | 'rollbackAt' | 'nextDueAt' | 'createdAt' | 'updatedAt' | 'results'> & {
  reason: string | null;
  actions: RunbookExecutionEntity['results']['actions'];
  decidedAt: string | null;
  expiresAt: string | null;
  rollbackAt: string | null;
  createdAt: string;
  updatedAt: string;
};

const iso = (date: Date | null): string | null => (date === null ? null : date.toISOString());

export function toExecutionResponse(e: RunbookExecutionEntity): ExecutionResponse {
  return {
    id: e.id,
    runbookId: e.runbookId,
    runbookName: e.runbookName,
    eventId: e.eventId,
    eventType: e.eventType,
    event: e.event,
    status: e.status,
    dryRun: e.dryRun,
    reason: e.results.reason ?? null,
    actions: e.results.actions,
    decidedBy: e.decidedBy,
    decidedAt: iso(e.decidedAt),
    expiresAt: iso(e.expiresAt),
    rollbackAt: iso(e.rollbackAt),
    createdAt: e.createdAt.toISOString(),
    updatedAt: e.updatedAt.toISOString(),
  };
}
