import { Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { GatewayEventPublisher } from '../gateway-events/gateway-event-publisher.service';
import type { ActionContext, ActionOutcome } from './runbook-action';
import { RunbookActionRegistry } from './runbook-action.registry';
import { nextDueAt } from './execution-schedule';
import { RunbookExecutionEntity, type ActionResult } from './runbook-execution.entity';

/** The gateway event (webhook kind) of an execution that ran. */
export const EXECUTION_FINISHED = 'runbook.execution_finished';
/** How often a running execution touches its `updated_at` (a RESTART_POD can run for an hour). */
export const RUNNING_HEARTBEAT_MS = 30_000;

/**
 * Runs an execution's actions in order and records each one's outcome, then does what comes
 * afterwards when it is due: an action's follow-up (a held breaker reset at the end of its
 * duration) and the rollback of rollbackAfterMinutes. Callers own the execution (the event's
 * lease, or the compare-and-set of an approval), so no two instances run the same one.
 */
@Injectable()
export class ExecutionRunner {
  private readonly logger = new Logger('Runbooks');

  constructor(
    private readonly registry: RunbookActionRegistry,
    @InjectRepository(RunbookExecutionEntity) private readonly executions: Repository<RunbookExecutionEntity>,
    private readonly publisher: GatewayEventPublisher,
  ) {}

  async run(execution: RunbookExecutionEntity, rollbackAfterMinutes: number | null): Promise<RunbookExecutionEntity> {
    const heartbeat = setInterval(() => void this.beat(execution.id), RUNNING_HEARTBEAT_MS);
    heartbeat.unref();
    try {
      return await this.runActions(execution, rollbackAfterMinutes);
    } finally {
      clearInterval(heartbeat);
    }
  }

  /** A live run says so: execution-recovery.service.ts fails only `running` rows whose beat stopped. */
  private async beat(id: string): Promise<void> {
    await this.executions.update({ id, status: 'running' }, { updatedAt: new Date() }).catch((error: unknown) => this.logger.warn(`runbook execution ${id} heartbeat: ${(error as Error).message}`));
  }

  private async runActions(execution: RunbookExecutionEntity, rollbackAfterMinutes: number | null): Promise<RunbookExecutionEntity> {
    const context: ActionContext = { executionId: execution.id, facts: execution.event };
    const actions: ActionResult[] = [];
    for (const planned of execution.results.actions) {
      const unit = this.registry.get(planned.type);
      let outcome: ActionOutcome;
      try {
        outcome = unit === undefined ? { status: 'failed', code: 'UNKNOWN_ACTION', message: `no action type ${planned.type}` } : await unit.run(planned.action, context);
      } catch (error) {
        this.logger.error(`runbook ${execution.runbookName} action ${planned.type} threw: ${(error as Error).message}`);
        outcome = { status: 'failed', code: 'INTERNAL_ERROR', message: 'the action failed unexpectedly (see the control-plane log)' };
      }
      actions.push({ ...planned, status: outcome.status, outcome });
    }
    const now = new Date();
    execution.results = { actions };
    execution.status = actions.every((a) => a.status === 'succeeded') ? 'succeeded' : 'failed';
    execution.rollbackAt = rollbackAfterMinutes === null || !actions.some((a) => a.outcome?.undo !== undefined) ? null : new Date(now.getTime() + rollbackAfterMinutes * 60_000);
    execution.nextDueAt = nextDueAt(execution);
    execution.updatedAt = now;
    await this.executions.save(execution);
    this.logger.log(`runbook ${execution.runbookName} ran for event ${execution.eventId}: ${execution.status}`);
    // The event stream (webhooks, incident timelines) learns what ran and how it went.
    this.publisher.publish(EXECUTION_FINISHED, {
      severity: execution.status === 'succeeded' ? 'INFO' : 'WARNING',
      summary: `Runbook "${execution.runbookName}" ${execution.status}: ${actions.map((a) => a.outcome?.message ?? a.type).join('; ')}`.slice(0, 500),
      executionId: execution.id,
      runbookId: execution.runbookId,
      runbookName: execution.runbookName,
      eventId: execution.eventId,
      status: execution.status,
    });
    return execution;
  }

  /** Follow-ups and the rollback that are due at `now`; each is done once and recorded. */
  async afterwards(execution: RunbookExecutionEntity, now = new Date()): Promise<void> {
    const context: ActionContext = { executionId: execution.id, facts: execution.event };
    const rollingBack = execution.rollbackAt !== null && execution.rollbackAt <= now && execution.status !== 'rolled_back';
    for (const result of execution.results.actions) {
      const unit = this.registry.get(result.type);
      const outcome = result.outcome;
      if (unit === undefined || outcome === undefined || result.undone !== undefined) continue;
      if (rollingBack && outcome.undo !== undefined && unit.undo !== undefined && result.followedUp === undefined) {
        result.undone = { at: now.toISOString(), message: await this.safely(() => (unit.undo as NonNullable<typeof unit.undo>)(outcome, context)) };
      } else if (outcome.followUpAt !== undefined && result.followedUp === undefined && Date.parse(outcome.followUpAt) <= now.getTime() && unit.followUp !== undefined) {
        result.followedUp = { at: now.toISOString(), message: await this.safely(() => (unit.followUp as NonNullable<typeof unit.followUp>)(outcome, context)) };
      }
    }
    if (rollingBack) execution.status = 'rolled_back';
    execution.results = { ...execution.results };
    execution.nextDueAt = nextDueAt(execution);
    execution.updatedAt = now;
    await this.executions.save(execution);
  }

  private async safely(step: () => Promise<string>): Promise<string> {
    try {
      return await step();
    } catch (error) {
      this.logger.error(`a runbook follow-up failed: ${(error as Error).message}`);
      return `failed: ${error instanceof Error && 'code' in error ? String(error.code) : 'see the control-plane log'}`;
    }
  }
}
