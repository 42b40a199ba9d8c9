import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put, Query } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Actor, type AuditActor } from '../audit/audit-actor';
import { Roles } from '../auth/auth.decorators';
import { ok, paginated, type ListEnvelope, type SuccessEnvelope } from '../common/envelope';
import { pageOf, PageQuery } from '../common/page.query';
import { Fails, NoContent, Ok, OkList } from '../openapi/openapi-schemas';
import { RunbookReads } from './runbook-reads.service';
import { RunbookWrites } from './runbook-writes.service';
import type { RunbookResponse } from './runbook.mapper';
import { RUNBOOK_BODY_SCHEMA, RUNBOOK_SCHEMA } from './runbooks.openapi';

const ID = ApiParam({ name: 'id', description: 'Runbook id' });
const NOT_FOUND = Fails(404, 'RUNBOOK_NOT_FOUND: "Runbook not found"');
const INVALID = Fails(400, 'VALIDATION_ERROR: details.fields names every bad field (name, trigger.eventType, trigger.conditions.confidence.min, actions[0].duration, safety.maxExecutionsPerHour, ...)');
const TAKEN = Fails(409, 'CONFLICT: another runbook has this name');

/** Recovery runbooks (docs/runbooks.md): admins only, like every automation that changes traffic. */
@ApiTags('runbooks')
@Roles('admin')
@Controller('api/runbooks')
export class RunbooksController {
  constructor(
    private readonly reads: RunbookReads,
    private readonly writes: RunbookWrites,
  ) {}

  @Get()
  @ApiOperation({ summary: 'List runbooks (creation order), paginated' })
  @OkList(RUNBOOK_SCHEMA)
  @Fails(400, 'VALIDATION_ERROR: an unknown or bad query parameter (details.fields)')
  async list(@Query() query: PageQuery): Promise<ListEnvelope<RunbookResponse>> {
    const page = pageOf(query);
    const { items, total } = await this.reads.list(page);
    return paginated(items, { total, ...page });
  }

  @Post()
  @ApiOperation({ summary: 'Create a runbook' })
  @ApiBody({ schema: RUNBOOK_BODY_SCHEMA })
  @Ok(201, RUNBOOK_SCHEMA)
  @INVALID
  @TAKEN
  async create(@Body() body: unknown, @Actor() actor: AuditActor): Promise<SuccessEnvelope<RunbookResponse>> {
    return ok(await this.writes.create(body, actor));
  }

  @Get(':id')
  @ApiOperation({ summary: 'One runbook' })
  @ID
  @Ok(200, RUNBOOK_SCHEMA)
  @NOT_FOUND
  async get(@Param('id') id: string): Promise<SuccessEnvelope<RunbookResponse>> {
    return ok(await this.reads.get(id));
  }

  @Put(':id')
  @ApiOperation({ summary: 'Replace a runbook' })
  @ID
  @ApiBody({ schema: RUNBOOK_BODY_SCHEMA })
  @Ok(200, RUNBOOK_SCHEMA)
  @INVALID
  @NOT_FOUND
  @TAKEN
  async replace(@Param('id') id: string, @Body() body: unknown, @Actor() actor: AuditActor): Promise<SuccessEnvelope<RunbookResponse>> {
    return ok(await this.writes.replace(id, body, actor));
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Change some fields (safety merged field by field); the result is validated whole' })
  @ID
  @ApiBody({ schema: { ...RUNBOOK_BODY_SCHEMA, required: [] } })
  @Ok(200, RUNBOOK_SCHEMA)
  @INVALID
  @NOT_FOUND
  @TAKEN
  async patch(@Param('id') id: string, @Body() body: unknown, @Actor() actor: AuditActor): Promise<SuccessEnvelope<RunbookResponse>> {
    return ok(await this.writes.patch(id, body, actor));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a runbook (its executions stay as records)' })
  @ID
  @NoContent('Deleted')
  @NOT_FOUND
  async delete(@Param('id') id: string, @Actor() actor: AuditActor): Promise<void> {
    await this.writes.delete(id, actor);
  }
}
