import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, LessThanOrEqual, type Repository } from 'typeorm';
import { CONTROL_PLANE_CONFIG } from '../config/config.tokens';
import type { ControlPlaneConfig } from '../config/control-plane-config';
import { Lease } from '../lease/lease.service';
import { LeasedInterval } from '../lease/leased-interval';
import { ExecutionRecovery } from './execution-recovery.service';
import { ExecutionRunner } from './execution-runner.service';
import { RunbookExecutionEntity } from './runbook-execution.entity';

export const RUNBOOK_SCHEDULE_LEASE = 'runbooks-schedule';
/** Approvals expire, holds end and rollbacks happen within about this much of their time. */
const TICK_MS = 1000;
const BATCH = 100;
const PRUNE_EVERY_TICKS = 60;
/** Long past any redelivery of the same event id on the bus. */
const EVENT_LEASE_GRACE_MS = 3_600_000;

/** Time-driven work on executions, on one instance (the lease holder): interrupted runs, expiry, follow-ups, rollbacks. */
@Injectable()
export class ExecutionScheduler implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Runbooks');
  private readonly schedule: LeasedInterval;
  private ticks = 0;

  constructor(
    @Inject(CONTROL_PLANE_CONFIG) config: Pick<ControlPlaneConfig, 'leases'>,
    private readonly lease: Lease,
    @InjectRepository(RunbookExecutionEntity) private readonly executions: Repository<RunbookExecutionEntity>,
    private readonly runner: ExecutionRunner,
    private readonly recovery: ExecutionRecovery,
  ) {
    this.schedule = new LeasedInterval(lease, { name: RUNBOOK_SCHEDULE_LEASE, ttlMs: config.leases.ttlMs, renewMs: TICK_MS, intervalMs: TICK_MS, job: () => this.tick(new Date()) }, this.logger);
  }

  onModuleInit(): void {
    void this.schedule.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.schedule.stop();
  }

  async tick(now: Date): Promise<void> {
    await this.recovery.failStale(now);
    const expired = await this.executions.update({ status: 'pending_approval', expiresAt: LessThanOrEqual(now) }, { status: 'expired', nextDueAt: null, updatedAt: now });
    if ((expired.affected ?? 0) > 0) this.logger.log(`${expired.affected} runbook approval request(s) expired`);
    const due = await this.executions.find({ where: { status: In(['succeeded', 'failed']), nextDueAt: LessThanOrEqual(now) }, order: { nextDueAt: 'ASC' }, take: BATCH });
    for (const execution of due) await this.runner.afterwards(execution, now);
    if ((this.ticks += 1) % PRUNE_EVERY_TICKS === 0) {
      // The per-event leases of the engine and of the incident grouper: the rows outlive their use.
      for (const prefix of ['runbook-event:', 'incident-event:']) await this.lease.forgetExpired(prefix, EVENT_LEASE_GRACE_MS);
    }
  }
}
