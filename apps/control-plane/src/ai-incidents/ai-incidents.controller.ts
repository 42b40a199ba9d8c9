import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Actor, type AuditActor } from '../audit/audit-actor';
import { Roles } from '../auth/auth.decorators';
import { ok, paginated, type ListEnvelope, type SuccessEnvelope } from '../common/envelope';
import { pageOf } from '../common/page.query';
import { Fails, NoContent, Ok, OkList } from '../openapi/openapi-schemas';
import type { IncidentResponse } from './ai-incident.mapper';
import { AiIncidents } from './ai-incidents.service';
import { INCIDENT_BODY_SCHEMA, INCIDENT_SCHEMA, NOTE_BODY_SCHEMA } from './ai-incidents.openapi';
import { IncidentQuery } from './incident-query.dto';

const ID = ApiParam({ name: 'id', description: 'Incident id' });
const NOT_FOUND = Fails(404, 'AI_INCIDENT_NOT_FOUND: "AI incident not found"');
const INVALID = Fails(400, 'VALIDATION_ERROR: details.fields names every bad field (title, status, severity, routes, upstreams, hypothesis)');

/** Incidents (docs/ai.md): admins only, like the route operations they lead to. */
@ApiTags('ai')
@Roles('admin')
@Controller('api/ai-incidents')
export class AiIncidentsController {
  constructor(private readonly incidents: AiIncidents) {}

  @Get()
  @ApiOperation({ summary: 'Incidents, most recent activity first; filter by status' })
  @OkList(INCIDENT_SCHEMA)
  @Fails(400, 'VALIDATION_ERROR: an unknown or bad query parameter (details.fields)')
  async list(@Query() query: IncidentQuery): Promise<ListEnvelope<IncidentResponse>> {
    const page = pageOf(query);
    const { items, total } = await this.incidents.list({ ...(query.status === undefined ? {} : { status: query.status }) }, page);
    return paginated(items, { total, ...page });
  }

  @Get(':id')
  @ApiOperation({ summary: 'One incident with its timeline' })
  @ID
  @Ok(200, INCIDENT_SCHEMA)
  @NOT_FOUND
  async get(@Param('id') id: string): Promise<SuccessEnvelope<IncidentResponse>> {
    return ok(await this.incidents.get(id));
  }

  @Post()
  @ApiOperation({ summary: 'Open an incident by hand (title and severity required)' })
  @ApiBody({ schema: { ...INCIDENT_BODY_SCHEMA, required: ['title', 'severity'] } })
  @Ok(201, INCIDENT_SCHEMA)
  @INVALID
  async create(@Body() body: unknown, @Actor() actor: AuditActor): Promise<SuccessEnvelope<IncidentResponse>> {
    return ok(await this.incidents.create(body, actor));
  }

  @Put(':id')
  @ApiOperation({ summary: 'Edit an incident: title, status (resolved closes it), severity, targets, hypothesis; a status change joins the timeline' })
  @ID
  @ApiBody({ schema: INCIDENT_BODY_SCHEMA })
  @Ok(200, INCIDENT_SCHEMA)
  @INVALID
  @NOT_FOUND
  async update(@Param('id') id: string, @Body() body: unknown, @Actor() actor: AuditActor): Promise<SuccessEnvelope<IncidentResponse>> {
    return ok(await this.incidents.update(id, body, actor));
  }

  @Post(':id/notes')
  @ApiOperation({ summary: 'Add a note to the timeline' })
  @ID
  @ApiBody({ schema: NOTE_BODY_SCHEMA })
  @Ok(201, INCIDENT_SCHEMA)
  @Fails(400, 'VALIDATION_ERROR: text is required (1 to 4000 characters)')
  @NOT_FOUND
  async note(@Param('id') id: string, @Body() body: unknown, @Actor() actor: AuditActor): Promise<SuccessEnvelope<IncidentResponse>> {
    return ok(await this.incidents.note(id, (body as { text?: unknown } | null)?.text, actor));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete an incident' })
  @ID
  @NoContent('Deleted')
  @NOT_FOUND
  async delete(@Param('id') id: string, @Actor() actor: AuditActor): Promise<void> {
    await this.incidents.delete(id, actor);
  }
}
