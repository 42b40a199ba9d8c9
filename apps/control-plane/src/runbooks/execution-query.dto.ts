import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { PageQuery } from '../common/page.query';
import { EXECUTION_STATUSES, type ExecutionStatus } from './runbook-execution.entity';

/** GET /api/runbook-executions filters. */
export class ExecutionQuery extends PageQuery {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString({ message: 'runbookId must be a string' })
  @MaxLength(36, { message: 'runbookId must be at most 36 characters' })
  runbookId?: string;

  @ApiPropertyOptional({ enum: EXECUTION_STATUSES })
  @IsOptional()
  @IsIn(EXECUTION_STATUSES, { message: `status must be one of ${EXECUTION_STATUSES.join(', ')}` })
  status?: ExecutionStatus;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString({ message: 'eventId must be a string' })
  @MaxLength(64, { message: 'eventId must be at most 64 characters' })
  eventId?: string;
}
