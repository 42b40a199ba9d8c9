import { Body, Controller, Get, HttpCode, Post, Put, Query } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Actor, type AuditActor } from '../audit/audit-actor';
import { Roles } from '../auth/auth.decorators';
import { ok, paginated, type ListEnvelope, type SuccessEnvelope } from '../common/envelope';
import { pageOf, PageQuery } from '../common/page.query';
import { Fails, Ok, OkList } from '../openapi/openapi-schemas';
import { RestoreSettingsDto } from './restore-settings.dto';
import { SETTINGS_DOCUMENT_SCHEMA, SETTINGS_VERSION_SCHEMA, SETTINGS_VIEW_SCHEMA } from './settings-openapi';
import { SettingsReads } from './settings-reads.service';
import type { SettingsVersionSummary } from './settings-store.service';
import type { SettingsView } from './settings-view';
import { SettingsWrites } from './settings-writes.service';

/** Spec 4.5 `/api/settings` (docs/settings.md): admins only. */
@ApiTags('settings')
@Roles('admin')
@Controller('api/settings')
export class SettingsController {
  constructor(
    private readonly reads: SettingsReads,
    private readonly writes: SettingsWrites,
  ) {}

  @Get()
  @ApiOperation({ summary: 'The settings in effect (secrets masked) and their version' })
  @Ok(200, SETTINGS_VIEW_SCHEMA)
  async get(): Promise<SuccessEnvelope<SettingsView>> {
    return ok(await this.reads.view());
  }

  @Put()
  @ApiOperation({ summary: 'Replace the settings (left-out fields take their defaults; left-out or masked secrets are kept)' })
  @ApiBody({ schema: SETTINGS_DOCUMENT_SCHEMA })
  @Ok(200, SETTINGS_VIEW_SCHEMA)
  @Fails(400, 'VALIDATION_ERROR: every failing field at once in details.fields (`general.tokenLifetimeSeconds`, ...), or an unknown section or field')
  @Fails(409, 'CONFLICT: another change was saved at the same moment; read and retry')
  async replace(@Body() body: unknown, @Actor() actor: AuditActor): Promise<SuccessEnvelope<SettingsView>> {
    return ok(await this.writes.replace(body, actor));
  }

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Restore a saved version (saved again as the newest version)' })
  @Ok(200, SETTINGS_VIEW_SCHEMA)
  @Fails(400, 'VALIDATION_ERROR: restoreVersion missing or not a positive integer (details.fields)')
  @Fails(404, 'SETTINGS_VERSION_NOT_FOUND: "Settings version not found"')
  @Fails(409, 'CONFLICT: another change was saved at the same moment; read and retry')
  async restore(@Body() body: RestoreSettingsDto, @Actor() actor: AuditActor): Promise<SuccessEnvelope<SettingsView>> {
    return ok(await this.writes.restore(body.restoreVersion, actor));
  }

  @Get('versions')
  @ApiOperation({ summary: 'Saved versions, newest first (paginated)' })
  @OkList(SETTINGS_VERSION_SCHEMA)
  @Fails(400, 'VALIDATION_ERROR: an unknown or bad query parameter (details.fields)')
  async versions(@Query() query: PageQuery): Promise<ListEnvelope<SettingsVersionSummary>> {
    const { limit, offset } = pageOf(query);
    const { items, total } = await this.reads.versions(limit, offset);
    return paginated(items, { total, limit, offset });
  }
}
