import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Actor, type AuditActor } from '../audit/audit-actor';
import { Roles } from '../auth/auth.decorators';
import { ok, paginated, type ListEnvelope, type SuccessEnvelope } from '../common/envelope';
import { pageOf, PageQuery } from '../common/page.query';
import { UpstreamDocs } from './upstream-openapi';
import type { UpstreamResponse } from './upstream.mapper';
import { UpstreamReads } from './upstream-reads.service';
import { UpstreamWrites } from './upstream-writes.service';

/** Upstream management (issue 18; docs/upstreams.md, section API); admin only. Bodies are validated by libs/route-model. */
@ApiTags('upstreams')
@Roles('admin')
@Controller('api/upstreams')
export class UpstreamsController {
  constructor(
    private readonly reads: UpstreamReads,
    private readonly writes: UpstreamWrites,
  ) {}

  @UpstreamDocs.list()
  @Get()
  async list(@Query() query: PageQuery): Promise<ListEnvelope<UpstreamResponse>> {
    const page = pageOf(query);
    const { items, total } = await this.reads.list(page);
    return paginated(items, { total, ...page });
  }

  @UpstreamDocs.create()
  @Post()
  async create(@Body() body: unknown, @Actor() actor: AuditActor): Promise<SuccessEnvelope<UpstreamResponse>> {
    return ok(await this.writes.create(body, actor));
  }

  @UpstreamDocs.get()
  @Get(':name')
  async get(@Param('name') name: string): Promise<SuccessEnvelope<UpstreamResponse>> {
    return ok(await this.reads.get(name));
  }

  @UpstreamDocs.replace()
  @Put(':name')
  async replace(@Param('name') name: string, @Body() body: unknown, @Actor() actor: AuditActor): Promise<SuccessEnvelope<UpstreamResponse>> {
    return ok(await this.writes.replace(name, body, actor));
  }

  @UpstreamDocs.patch()
  @Patch(':name')
  async patch(@Param('name') name: string, @Body() body: unknown, @Actor() actor: AuditActor): Promise<SuccessEnvelope<UpstreamResponse>> {
    return ok(await this.writes.patch(name, body, actor));
  }

  @UpstreamDocs.remove()
  @Delete(':name')
  @HttpCode(204)
  async remove(@Param('name') name: string, @Actor() actor: AuditActor): Promise<void> {
    await this.writes.remove(name, actor);
  }
}
