import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { eventFacts, type EventFacts } from '../gateway-events/event-facts';
import { GATEWAY_EVENT, type AnyGatewayEvent } from '../gateway-events/gateway-event';
import { GatewayEventPublisher } from '../gateway-events/gateway-event-publisher.service';
import { Lease } from '../lease/lease.service';
import { ExecutionLimits } from './execution-limits.service';
import { ExecutionRunner } from './execution-runner.service';
import { RunbookActionRegistry } from './runbook-action.registry';
import { RunbookExecutionEntity, type ActionResult, type ExecutionStatus } from './runbook-execution.entity';
import { runsWithoutApproval, triggerMatches } from './runbook-trigger';
import { RunbookEntity } from './runbook.entity';
import { RunbooksSettingsReader } from './runbooks-settings.reader';

/** The webhook kind (and gateway event) of a new approval request. */
export const APPROVAL_REQUESTED = 'runbook.approval_requested';
/** Long enough for every matching runbook of one event to be decided; the unique row guards after. */
const EVENT_LEASE_MS = 60_000;

/**
 * Spec 6.2: every gateway event is matched against the enabled runbooks. Every control-plane
 * instance hears every event, so the instance that takes the event's lease decides for all of
 * them (and the execution row is unique per runbook and event): run at once, ask for approval,
 * record a dry run, or record why it was skipped (kill switch, hourly limits).
 */
@Injectable()
export class RunbookEngine {
  private readonly logger = new Logger('Runbooks');

  constructor(
    @InjectRepository(RunbookEntity) private readonly runbooks: Repository<RunbookEntity>,
    @InjectRepository(RunbookExecutionEntity) private readonly executions: Repository<RunbookExecutionEntity>,
    private readonly registry: RunbookActionRegistry,
    private readonly limits: ExecutionLimits,
    private readonly runner: ExecutionRunner,
    private readonly settings: RunbooksSettingsReader,
    private readonly lease: Lease,
    private readonly publisher: GatewayEventPublisher,
  ) {}

  @OnEvent(GATEWAY_EVENT, { async: true })
  async onGatewayEvent(event: AnyGatewayEvent): Promise<void> {
    // Runbooks' own events never trigger runbooks: no loops.
    if (event.type.startsWith('runbook.')) return;
    try {
      const facts = eventFacts(event);
      const matched = (await this.runbooks.findBy({ enabled: true })).filter((runbook) => triggerMatches(runbook.trigger, facts));
      if (matched.length === 0) return;
      const grant = await this.lease.acquire(`runbook-event:${event.id}`, EVENT_LEASE_MS);
      if (grant === undefined) return;
      for (const runbook of matched) await this.decide(runbook, facts);
    } catch (error) {
      this.logger.error(`cannot match event ${event.id} (${event.type}) against runbooks: ${(error as Error).message}`);
    }
  }

  private async decide(runbook: RunbookEntity, facts: EventFacts): Promise<void> {
    const settings = this.settings.current();
    const dryRun = settings.dryRun || runbook.safety.dryRun;
    const now = new Date();
    const context = { executionId: randomUUID(), facts };
    const planned: ActionResult[] = runbook.actions.map((action, index) => ({
      index,
      type: action.type,
      action,
      status: dryRun ? 'dry_run' : 'planned',
      description: this.registry.get(action.type)?.describe(action, context) ?? `unknown action type ${action.type}`,
    }));
    let status: ExecutionStatus;
    let reason: string | undefined;
    if (!settings.enabled) {
      [status, reason] = ['skipped', 'runbooks are switched off (settings runbooks.enabled)'];
    } else {
      reason = await this.limits.reached(runbook.id, runbook.safety.maxExecutionsPerHour, settings.maxExecutionsPerHour, now);
      if (reason !== undefined) status = 'skipped';
      else if (dryRun) status = 'dry_run';
      else status = runsWithoutApproval(runbook.safety.requiresApproval, facts) ? 'running' : 'pending_approval';
    }
    const execution = this.executions.create({
      id: context.executionId,
      runbookId: runbook.id,
      runbookName: runbook.name,
      eventId: facts.id,
      eventType: facts.type,
      event: facts,
      status,
      dryRun,
      results: reason === undefined ? { actions: planned } : { reason, actions: planned },
      decidedBy: null,
      decidedAt: null,
      expiresAt: status === 'pending_approval' ? new Date(now.getTime() + settings.approvalExpirySeconds * 1000) : null,
      rollbackAt: null,
      nextDueAt: null,
      createdAt: now,
      updatedAt: now,
    });
    execution.nextDueAt = execution.expiresAt;
    await this.executions.createQueryBuilder().insert().values(execution as never).orIgnore().execute();
    // Ignored: another instance recorded this runbook for this event already (its lease expired meanwhile).
    if (!(await this.executions.existsBy({ id: execution.id }))) return;
    this.logger.log(`runbook ${runbook.name} matched event ${facts.id} (${facts.type}, confidence ${facts.confidence}): ${status}${reason === undefined ? '' : ` (${reason})`}`);
    if (status === 'running') await this.runner.run(execution, runbook.safety.rollbackAfterMinutes);
    if (status === 'pending_approval') this.announce(execution, runbook);
  }

  private announce(execution: RunbookExecutionEntity, runbook: RunbookEntity): void {
    this.publisher.publish(APPROVAL_REQUESTED, {
      severity: 'WARNING',
      summary: `Runbook "${runbook.name}" waits for approval (event ${execution.eventType}, confidence ${execution.event.confidence})`,
      executionId: execution.id,
      runbookId: runbook.id,
      runbookName: runbook.name,
      eventId: execution.eventId,
      eventType: execution.eventType,
      confidence: execution.event.confidence,
      actions: execution.results.actions.map((a) => a.description),
      expiresAt: (execution.expiresAt as Date).toISOString(),
      approve: `/api/runbook-executions/${execution.id}/approve`,
      reject: `/api/runbook-executions/${execution.id}/reject`,
    });
  }
}
