import type { RunbookExecutionEntity } from './runbook-execution.entity';

/**
 * The next instant an execution has work for the scheduler: its approval's expiry while pending,
 * else the earliest pending follow-up or its rollback. Null when nothing is left to do.
 */
export function nextDueAt(execution: Pick<RunbookExecutionEntity, 'status' | 'expiresAt' | 'rollbackAt' | 'results'>): Date | null {
  if (execution.status === 'pending_approval') return execution.expiresAt;
  if (execution.status !== 'succeeded' && execution.status !== 'failed') return null;
  const due: number[] = [];
  for (const result of execution.results.actions) {
    const followUpAt = result.outcome?.followUpAt;
    if (followUpAt !== undefined && result.followedUp === undefined && result.undone === undefined) due.push(Date.parse(followUpAt));
  }
  const undoable = execution.results.actions.some((r) => r.outcome?.undo !== undefined && r.undone === undefined && r.followedUp === undefined);
  if (execution.rollbackAt !== null && undoable) due.push(execution.rollbackAt.getTime());
  return due.length === 0 ? null : new Date(Math.min(...due));
}
