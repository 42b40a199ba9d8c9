import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiExtraModels, ApiOperation, ApiParam, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { Actor, type AuditActor } from '../audit/audit-actor';
import { Roles } from '../auth/auth.decorators';
import { ok, paginated, type ListEnvelope, type SuccessEnvelope } from '../common/envelope';
import { pageOf } from '../common/page.query';
import { Fails, NoContent, Ok, OkList } from '../openapi/openapi-schemas';
import { ApiKeyReads } from './api-key-reads.service';
import { ApiKeyResponseDto, CreatedApiKeyDto } from './api-key-response.dto';
import { ApiKeyWrites } from './api-key-writes.service';
import type { ApiKeyResponse, CreatedApiKey } from './api-key.mapper';
import { CreateApiKeyDto } from './create-api-key.dto';
import { ListApiKeysQuery } from './list-api-keys.query';

const KEY = { $ref: getSchemaPath(ApiKeyResponseDto) };
const ID = ApiParam({ name: 'id', description: 'API key id' });
const NOT_FOUND = Fails(404, 'API_KEY_NOT_FOUND: "API key not found"');

/** API keys for gateway authentication (`auth.type: apiKey`, decision 22; docs/api-keys.md); admins only. */
@ApiTags('api-keys')
@ApiExtraModels(ApiKeyResponseDto, CreatedApiKeyDto)
@Roles('admin')
@Controller('api/api-keys')
export class ApiKeysController {
  constructor(
    private readonly reads: ApiKeyReads,
    private readonly writes: ApiKeyWrites,
  ) {}

  @Post()
  @ApiOperation({ summary: 'Create a key; the response holds the key itself, shown this once' })
  @Ok(201, { $ref: getSchemaPath(CreatedApiKeyDto) })
  @Fails(400, 'VALIDATION_ERROR: a missing, bad or unknown field (details.fields names name or expiresAt)')
  @Fails(503, 'API_KEYS_NOT_CONFIGURED: API_KEY_SECRET is not set on this control plane')
  async create(@Body() body: CreateApiKeyDto, @Actor() actor: AuditActor): Promise<SuccessEnvelope<CreatedApiKey>> {
    return ok(await this.writes.create(body, actor));
  }

  @Get()
  @ApiOperation({ summary: 'List keys (creation order), paginated, optionally by status' })
  @OkList(KEY)
  @Fails(400, 'VALIDATION_ERROR: an unknown or bad query parameter (details.fields)')
  async list(@Query() query: ListApiKeysQuery): Promise<ListEnvelope<ApiKeyResponse>> {
    const page = pageOf(query);
    const { items, total } = await this.reads.list({ ...page, ...(query.status === undefined ? {} : { status: query.status }) });
    return paginated(items, { total, ...page });
  }

  @Get(':id')
  @ApiOperation({ summary: 'One key (never the key itself)' })
  @ID
  @Ok(200, KEY)
  @NOT_FOUND
  async get(@Param('id') id: string): Promise<SuccessEnvelope<ApiKeyResponse>> {
    return ok(await this.reads.get(id));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Revoke a key: refused by every data plane within about a second; revoking again changes nothing' })
  @ID
  @NoContent('Revoked (or already revoked)')
  @NOT_FOUND
  async revoke(@Param('id') id: string, @Actor() actor: AuditActor): Promise<void> {
    await this.writes.revoke(id, actor);
  }
}
