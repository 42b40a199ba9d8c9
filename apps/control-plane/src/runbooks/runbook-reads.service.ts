import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { FindOptionsWhere, Repository } from 'typeorm';
import { DomainError } from '../common/domain-error';
import { RunbookExecutionEntity, type ExecutionStatus } from './runbook-execution.entity';
import { toExecutionResponse, toRunbookResponse, type ExecutionResponse, type RunbookResponse } from './runbook.mapper';
import { RunbookEntity } from './runbook.entity';

/** Runbooks and their executions, read (newest executions first). */
@Injectable()
export class RunbookReads {
  constructor(
    @InjectRepository(RunbookEntity) private readonly runbooks: Repository<RunbookEntity>,
    @InjectRepository(RunbookExecutionEntity) private readonly executions: Repository<RunbookExecutionEntity>,
  ) {}

  async list(page: { limit: number; offset: number }): Promise<{ items: RunbookResponse[]; total: number }> {
    const [rows, total] = await this.runbooks.findAndCount({ order: { createdAt: 'ASC', id: 'ASC' }, take: page.limit, skip: page.offset });
    return { items: rows.map(toRunbookResponse), total };
  }

  async get(id: string): Promise<RunbookResponse> {
    const entity = await this.runbooks.findOneBy({ id });
    if (entity === null) throw new DomainError('RUNBOOK_NOT_FOUND');
    return toRunbookResponse(entity);
  }

  async executionsOf(filter: { runbookId?: string; status?: ExecutionStatus; eventId?: string }, page: { limit: number; offset: number }): Promise<{ items: ExecutionResponse[]; total: number }> {
    const where: FindOptionsWhere<RunbookExecutionEntity> = {};
    if (filter.runbookId !== undefined) where.runbookId = filter.runbookId;
    if (filter.status !== undefined) where.status = filter.status;
    if (filter.eventId !== undefined) where.eventId = filter.eventId;
    const [rows, total] = await this.executions.findAndCount({ where, order: { createdAt: 'DESC', id: 'ASC' }, take: page.limit, skip: page.offset });
    return { items: rows.map(toExecutionResponse), total };
  }

  async execution(id: string): Promise<ExecutionResponse> {
    const entity = await this.executions.findOneBy({ id });
    if (entity === null) throw new DomainError('RUNBOOK_EXECUTION_NOT_FOUND');
    return toExecutionResponse(entity);
  }
}
