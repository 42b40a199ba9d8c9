import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Actor, type AuditActor } from '../audit/audit-actor';
import { Roles } from '../auth/auth.decorators';
import { ok, paginated, type ListEnvelope, type SuccessEnvelope } from '../common/envelope';
import { pageOf } from '../common/page.query';
import { Fails, Ok, OkList } from '../openapi/openapi-schemas';
import { ExecutionApprovals } from './execution-approvals.service';
import { ExecutionQuery } from './execution-query.dto';
import { RunbookReads } from './runbook-reads.service';
import type { ExecutionResponse } from './runbook.mapper';
import { EXECUTION_SCHEMA } from './runbooks.openapi';

const ID = ApiParam({ name: 'id', description: 'Execution id' });
const NOT_FOUND = Fails(404, 'RUNBOOK_EXECUTION_NOT_FOUND: "Runbook execution not found"');
const DECIDED = Fails(409, 'CONFLICT: the execution no longer waits for approval (details.status: running, rejected, expired, ...)');

/** Execution records and the approval decisions (docs/runbooks.md); admins only, decisions audited. */
@ApiTags('runbooks')
@Roles('admin')
@Controller('api/runbook-executions')
export class RunbookExecutionsController {
  constructor(
    private readonly reads: RunbookReads,
    private readonly approvals: ExecutionApprovals,
  ) {}

  @Get()
  @ApiOperation({ summary: 'Execution records, newest first; filter by runbookId, status, eventId' })
  @OkList(EXECUTION_SCHEMA)
  @Fails(400, 'VALIDATION_ERROR: an unknown or bad query parameter (details.fields)')
  async list(@Query() query: ExecutionQuery): Promise<ListEnvelope<ExecutionResponse>> {
    const page = pageOf(query);
    const { items, total } = await this.reads.executionsOf(query, page);
    return paginated(items, { total, ...page });
  }

  @Get(':id')
  @ApiOperation({ summary: "One execution with each action's result" })
  @ID
  @Ok(200, EXECUTION_SCHEMA)
  @NOT_FOUND
  async get(@Param('id') id: string): Promise<SuccessEnvelope<ExecutionResponse>> {
    return ok(await this.reads.execution(id));
  }

  @Post(':id/approve')
  @HttpCode(200)
  @ApiOperation({ summary: 'Approve a pending execution: it runs now (compare-and-set: one decision wins)' })
  @ID
  @Ok(200, EXECUTION_SCHEMA)
  @NOT_FOUND
  @DECIDED
  @Fails(422, 'BUSINESS_RULE: runbooks are switched off, or an hourly limit is reached')
  async approve(@Param('id') id: string, @Actor() actor: AuditActor): Promise<SuccessEnvelope<ExecutionResponse>> {
    return ok(await this.approvals.approve(id, actor));
  }

  @Post(':id/reject')
  @HttpCode(200)
  @ApiOperation({ summary: 'Reject a pending execution: nothing runs' })
  @ID
  @Ok(200, EXECUTION_SCHEMA)
  @NOT_FOUND
  @DECIDED
  async reject(@Param('id') id: string, @Actor() actor: AuditActor): Promise<SuccessEnvelope<ExecutionResponse>> {
    return ok(await this.approvals.reject(id, actor));
  }
}
