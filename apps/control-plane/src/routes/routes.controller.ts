import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Roles } from '../auth/auth.decorators';
import { DomainError } from '../common/domain-error';
import { ok, paginated, type ListEnvelope, type SuccessEnvelope } from '../common/envelope';
import { Actor, type AuditActor } from '../audit/audit-actor';
import { parseRouteListQuery } from './route-list-query';
import { RouteLifecycle } from './route-lifecycle.service';
import { RouteDocs } from './route-openapi';
import type { RouteResponse } from './route.mapper';
import { RouteProbe, type RouteProbeFailure, type RouteProbeResponse } from './route-probe.service';
import { RouteReads } from './route-reads.service';
import { RouteWrites } from './route-writes.service';

/** `?permanent=true|false`; anything else is a 400 naming the parameter. */
function permanentFlag(query: Record<string, unknown>): boolean {
  const unknown = Object.keys(query).filter((key) => key !== 'permanent');
  const value = query['permanent'];
  if (unknown.length > 0 || (value !== undefined && value !== 'true' && value !== 'false')) {
    const fields = [...unknown.map((field) => ({ field, message: `Unknown query parameter: ${field}`, code: 'VALIDATION_ERROR' }))];
    if (value !== undefined && value !== 'true' && value !== 'false') fields.push({ field: 'permanent', message: 'permanent must be true or false', code: 'VALIDATION_ERROR' });
    throw DomainError.fromFieldErrors(fields);
  }
  return value === 'true';
}

/** Route management (spec 4.3, decisions 1-13); admin only. Bodies are validated by libs/route-model. */
@ApiTags('routes')
@Roles('admin')
@Controller('api/routes')
export class RoutesController {
  constructor(
    private readonly reads: RouteReads,
    private readonly writes: RouteWrites,
    private readonly lifecycle: RouteLifecycle,
    private readonly probes: RouteProbe,
  ) {}

  @RouteDocs.list()
  @Get()
  async list(@Query() query: Record<string, unknown>): Promise<ListEnvelope<RouteResponse>> {
    const parsed = parseRouteListQuery(query);
    const { items, total } = await this.reads.list(parsed);
    return paginated(items, { total, limit: parsed.limit, offset: parsed.offset });
  }

  @RouteDocs.create()
  @Post()
  async create(@Body() body: unknown, @Actor() actor: AuditActor): Promise<SuccessEnvelope<RouteResponse>> {
    return ok(await this.writes.create(body, actor));
  }

  @RouteDocs.get()
  @Get(':id')
  async get(@Param('id') id: string): Promise<SuccessEnvelope<RouteResponse>> {
    return ok(await this.reads.get(id));
  }

  @RouteDocs.replace()
  @Put(':id')
  async replace(@Param('id') id: string, @Body() body: unknown, @Actor() actor: AuditActor): Promise<SuccessEnvelope<RouteResponse>> {
    return ok(await this.writes.replace(id, body, actor));
  }

  @RouteDocs.patch()
  @Patch(':id')
  async patch(@Param('id') id: string, @Body() body: unknown, @Actor() actor: AuditActor): Promise<SuccessEnvelope<RouteResponse>> {
    return ok(await this.writes.patch(id, body, actor));
  }

  @RouteDocs.remove()
  @Delete(':id')
  @HttpCode(204)
  async remove(@Param('id') id: string, @Query() query: Record<string, unknown>, @Actor() actor: AuditActor): Promise<void> {
    await this.lifecycle.remove(id, permanentFlag(query), actor);
  }

  @RouteDocs.toggle()
  @Post(':id/toggle')
  @HttpCode(200)
  async toggle(@Param('id') id: string, @Actor() actor: AuditActor): Promise<SuccessEnvelope<RouteResponse>> {
    return ok(await this.lifecycle.toggle(id, actor));
  }

  @RouteDocs.clone()
  @Post(':id/clone')
  @HttpCode(201)
  async clone(@Param('id') id: string, @Actor() actor: AuditActor): Promise<SuccessEnvelope<RouteResponse>> {
    return ok(await this.lifecycle.clone(id, actor));
  }

  @RouteDocs.restore()
  @Post(':id/restore')
  @HttpCode(200)
  async restore(@Param('id') id: string, @Actor() actor: AuditActor): Promise<SuccessEnvelope<RouteResponse>> {
    return ok(await this.lifecycle.restore(id, actor));
  }

  @RouteDocs.test()
  @Post(':id/test')
  @HttpCode(200)
  async test(@Param('id') id: string, @Body() body: unknown, @Actor() actor: AuditActor): Promise<SuccessEnvelope<RouteProbeResponse | RouteProbeFailure>> {
    return ok(await this.probes.probe(id, body, actor));
  }
}
