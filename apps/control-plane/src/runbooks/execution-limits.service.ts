import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, MoreThan, type Repository } from 'typeorm';
import { RunbookExecutionEntity, type ExecutionStatus } from './runbook-execution.entity';

/** Executions that acted (or would have, in a dry run): what the hourly limits count. */
const COUNTED: ExecutionStatus[] = ['running', 'succeeded', 'failed', 'rolled_back', 'dry_run'];
const HOUR_MS = 3_600_000;

/**
 * Spec 8's auto-recovery limits: a runbook's own maxExecutionsPerHour and a global limit over all
 * runbooks, in a sliding hour. The reason names the limit that was reached, or undefined.
 */
@Injectable()
export class ExecutionLimits {
  constructor(@InjectRepository(RunbookExecutionEntity) private readonly executions: Repository<RunbookExecutionEntity>) {}

  async reached(runbookId: string, perRunbook: number, global: number, now = new Date()): Promise<string | undefined> {
    const since = MoreThan(new Date(now.getTime() - HOUR_MS));
    const all = await this.executions.countBy({ status: In(COUNTED), createdAt: since });
    if (all >= global) return `the global limit of ${global} executions per hour is reached`;
    const own = await this.executions.countBy({ runbookId, status: In(COUNTED), createdAt: since });
    if (own >= perRunbook) return `this runbook's limit of ${perRunbook} executions per hour is reached`;
    return undefined;
  }
}
