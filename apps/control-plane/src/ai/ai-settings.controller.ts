import { Body, Controller, Get, Put } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Actor, type AuditActor } from '../audit/audit-actor';
import { Roles } from '../auth/auth.decorators';
import { ok, type SuccessEnvelope } from '../common/envelope';
import { Fails, Ok } from '../openapi/openapi-schemas';
import { AI_SECTION_KEY, AI_SETTINGS_SECTION, ASSISTANT_SECTION_KEY, ASSISTANT_SETTINGS_SECTION } from './ai-settings.section';
import { AI_SETTINGS_SCHEMA, ASSISTANT_SETTINGS_SCHEMA } from './ai.openapi';
import { SettingsSectionEndpoint } from './settings-section-endpoint.service';

const INVALID = Fails(400, 'VALIDATION_ERROR: every failing field at once in details.fields (`ai.timeoutMs`, ...), or an unknown field');
const RACE = Fails(409, 'CONFLICT: another settings change was saved at the same moment; read and retry');

/** Spec 4.5 `/api/settings/ai` and `/api/settings/assistant` (docs/ai.md): admins only; the API key is write-only. */
@ApiTags('settings')
@Roles('admin')
@Controller('api/settings')
export class AiSettingsController {
  constructor(private readonly sections: SettingsSectionEndpoint) {}

  @Get('ai')
  @ApiOperation({ summary: 'The AI provider settings (apiKey masked)' })
  @Ok(200, AI_SETTINGS_SCHEMA)
  async getAi(): Promise<SuccessEnvelope<Record<string, unknown>>> {
    return ok(await this.sections.get(AI_SECTION_KEY, AI_SETTINGS_SECTION.defaults() as unknown as Record<string, unknown>));
  }

  @Put('ai')
  @ApiOperation({ summary: 'Replace the AI provider settings (left-out fields take their defaults; a left-out or masked apiKey is kept, null removes it)' })
  @ApiBody({ schema: AI_SETTINGS_SCHEMA })
  @Ok(200, AI_SETTINGS_SCHEMA)
  @INVALID
  @RACE
  async putAi(@Body() body: unknown, @Actor() actor: AuditActor): Promise<SuccessEnvelope<Record<string, unknown>>> {
    return ok(await this.sections.put(AI_SECTION_KEY, body, AI_SETTINGS_SECTION.defaults() as unknown as Record<string, unknown>, actor));
  }

  @Get('assistant')
  @ApiOperation({ summary: 'How the configured provider is asked (model parameters, extra instructions)' })
  @Ok(200, ASSISTANT_SETTINGS_SCHEMA)
  async getAssistant(): Promise<SuccessEnvelope<Record<string, unknown>>> {
    return ok(await this.sections.get(ASSISTANT_SECTION_KEY, ASSISTANT_SETTINGS_SECTION.defaults() as unknown as Record<string, unknown>));
  }

  @Put('assistant')
  @ApiOperation({ summary: 'Replace the assistant settings' })
  @ApiBody({ schema: ASSISTANT_SETTINGS_SCHEMA })
  @Ok(200, ASSISTANT_SETTINGS_SCHEMA)
  @INVALID
  @RACE
  async putAssistant(@Body() body: unknown, @Actor() actor: AuditActor): Promise<SuccessEnvelope<Record<string, unknown>>> {
    return ok(await this.sections.put(ASSISTANT_SECTION_KEY, body, ASSISTANT_SETTINGS_SECTION.defaults() as unknown as Record<string, unknown>, actor));
  }
}
