import { Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { LessThanOrEqual, type Repository } from 'typeorm';
import { GatewayEventPublisher } from '../gateway-events/gateway-event-publisher.service';
import { EXECUTION_FINISHED, RUNNING_HEARTBEAT_MS } from './execution-runner.service';
import { RunbookExecutionEntity } from './runbook-execution.entity';

/** A `running` row without a heartbeat for this long lost the instance that ran it (ten beats missed). */
export const STALE_RUNNING_MS = RUNNING_HEARTBEAT_MS * 10;
const BATCH = 100;

/**
 * Executions left `running` by a control plane that died mid-run. They are failed, never resumed:
 * the record holds no per-action progress until the run ends, and the actions are not idempotent
 * (a second eviction round, a scale applied twice), so running them again could do harm; the
 * reason asks an operator to check what the actions did. Runs on the schedule's lease holder, at
 * once when it takes the lease (so at start) and on every tick.
 */
@Injectable()
export class ExecutionRecovery {
  private readonly logger = new Logger('Runbooks');

  constructor(
    @InjectRepository(RunbookExecutionEntity) private readonly executions: Repository<RunbookExecutionEntity>,
    private readonly publisher: GatewayEventPublisher,
  ) {}

  async failStale(now: Date): Promise<number> {
    const stale = await this.executions.find({ where: { status: 'running', updatedAt: LessThanOrEqual(new Date(now.getTime() - STALE_RUNNING_MS)) }, order: { updatedAt: 'ASC' }, take: BATCH });
    let failed = 0;
    for (const execution of stale) {
      const reason = `INTERRUPTED: the control plane running it stopped mid-run (no heartbeat since ${execution.updatedAt.toISOString()}); not resumed, as its actions may have partly run: check the targets`;
      // simple-json: TypeORM serialises it on update as on save; its deep-partial type cannot say so.
      const results = { ...execution.results, reason };
      // Conditional on the row as read: a late heartbeat or a finishing run wins over the recovery.
      const done = await this.executions.update({ id: execution.id, status: 'running', updatedAt: execution.updatedAt }, { status: 'failed', results: results as never, nextDueAt: null, updatedAt: now });
      if ((done.affected ?? 0) === 0) continue;
      failed += 1;
      this.logger.warn(`runbook ${execution.runbookName} execution ${execution.id} for event ${execution.eventId} was interrupted: marked failed`);
      this.publisher.publish(EXECUTION_FINISHED, {
        severity: 'WARNING',
        summary: `Runbook "${execution.runbookName}" failed: interrupted mid-run by a control-plane stop`,
        executionId: execution.id,
        runbookId: execution.runbookId,
        runbookName: execution.runbookName,
        eventId: execution.eventId,
        status: 'failed',
      });
    }
    return failed;
  }
}
