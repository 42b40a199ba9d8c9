import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { MoreThan, type Repository } from 'typeorm';
import type { AuditActor } from '../audit/audit-actor';
import { AuditLogService } from '../audit/audit-log.service';
import { DomainError } from '../common/domain-error';
import { GatewayEventPublisher } from '../gateway-events/gateway-event-publisher.service';
import { ExecutionLimits } from './execution-limits.service';
import { ExecutionRunner } from './execution-runner.service';
import { RunbookExecutionEntity } from './runbook-execution.entity';
import { toExecutionResponse, type ExecutionResponse } from './runbook.mapper';
import { RunbookEntity } from './runbook.entity';
import { RunbooksSettingsReader } from './runbooks-settings.reader';

/** The gateway event (webhook kind) of an approval decision. */
export const APPROVAL_DECIDED = 'runbook.approval_decided';

/**
 * Approve or reject a pending execution. The decision is a compare-and-set on the row (pending
 * and not expired -> running | rejected), so of two admins or two instances exactly one wins;
 * the loser gets 409 with the state the winner left. Who and when go to the audit log.
 */
@Injectable()
export class ExecutionApprovals {
  constructor(
    @InjectRepository(RunbookExecutionEntity) private readonly executions: Repository<RunbookExecutionEntity>,
    @InjectRepository(RunbookEntity) private readonly runbooks: Repository<RunbookEntity>,
    private readonly limits: ExecutionLimits,
    private readonly runner: ExecutionRunner,
    private readonly settings: RunbooksSettingsReader,
    private readonly audit: AuditLogService,
    private readonly publisher: GatewayEventPublisher,
  ) {}

  async approve(id: string, actor: AuditActor): Promise<ExecutionResponse> {
    const pending = await this.pending(id);
    const runbook = await this.runbooks.findOneBy({ id: pending.runbookId });
    const settings = this.settings.current();
    if (!settings.enabled) throw new DomainError('BUSINESS_RULE', 'Runbooks are switched off (settings runbooks.enabled): nothing may run');
    const limit = await this.limits.reached(pending.runbookId, runbook?.safety.maxExecutionsPerHour ?? 1, settings.maxExecutionsPerHour);
    if (limit !== undefined) throw new DomainError('BUSINESS_RULE', `Cannot run now: ${limit}`, { executionId: id });
    const decided = await this.decide(pending, 'running', actor);
    await this.audit.record({ actor: actor.email, action: 'runbook-execution.approve', target: id, ip: actor.ip, details: { runbookId: decided.runbookId, eventId: decided.eventId } });
    return toExecutionResponse(await this.runner.run(decided, runbook?.safety.rollbackAfterMinutes ?? null));
  }

  async reject(id: string, actor: AuditActor): Promise<ExecutionResponse> {
    const decided = await this.decide(await this.pending(id), 'rejected', actor);
    await this.audit.record({ actor: actor.email, action: 'runbook-execution.reject', target: id, ip: actor.ip, details: { runbookId: decided.runbookId, eventId: decided.eventId } });
    return toExecutionResponse(decided);
  }

  private async pending(id: string): Promise<RunbookExecutionEntity> {
    const execution = await this.executions.findOneBy({ id });
    if (execution === null) throw new DomainError('RUNBOOK_EXECUTION_NOT_FOUND');
    return execution;
  }

  private async decide(execution: RunbookExecutionEntity, to: 'running' | 'rejected', actor: AuditActor): Promise<RunbookExecutionEntity> {
    const now = new Date();
    const update = await this.executions.update(
      { id: execution.id, status: 'pending_approval', expiresAt: MoreThan(now) },
      { status: to, decidedBy: actor.email, decidedAt: now, nextDueAt: null, updatedAt: now },
    );
    if ((update.affected ?? 0) === 0) {
      const current = (await this.executions.findOneBy({ id: execution.id })) ?? execution;
      const state = current.status === 'pending_approval' ? 'expired' : current.status;
      throw new DomainError('CONFLICT', `The execution is no longer waiting for approval: it is ${state}`, { status: state });
    }
    this.publisher.publish(APPROVAL_DECIDED, {
      severity: 'INFO',
      summary: `Runbook "${execution.runbookName}" ${to === 'running' ? 'approved' : 'rejected'} by ${actor.email}`,
      executionId: execution.id,
      runbookId: execution.runbookId,
      runbookName: execution.runbookName,
      eventId: execution.eventId,
      decision: to === 'running' ? 'approved' : 'rejected',
      decidedBy: actor.email,
    });
    return Object.assign(execution, { status: to, decidedBy: actor.email, decidedAt: now, nextDueAt: null, updatedAt: now });
  }
}
