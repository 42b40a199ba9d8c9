import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags, type SchemaObject } from '@nestjs/swagger';
import { Roles } from '../auth/auth.decorators';
import { paginated, type ListEnvelope } from '../common/envelope';
import { pageOf, PageQuery } from '../common/page.query';
import { Fails, OkList } from '../openapi/openapi-schemas';
import { AuditLogService, type AuditRecord } from './audit-log.service';

const AUDIT_RECORD: SchemaObject = {
  type: 'object',
  required: ['id', 'at', 'actor', 'action', 'target', 'ip', 'details'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    at: { type: 'string', format: 'date-time' },
    actor: { type: 'string', description: "The user's email, system or anonymous", example: 'admin@example.com' },
    action: { type: 'string', example: 'route.create' },
    target: { type: 'string', nullable: true, example: 'rt_Qm9xY2FyZ29fMTIz' },
    ip: { type: 'string', nullable: true },
    details: { type: 'object', nullable: true, description: 'What changed (never secrets)' },
  },
};

/** Admins read the audit log, newest first (spec 6.4: who, what, when, from where). */
@ApiTags('audit')
@Roles('admin')
@Controller('api/audit-log')
export class AuditLogController {
  constructor(private readonly audit: AuditLogService) {}

  @Get()
  @ApiOperation({ summary: 'Management changes and authentication events, newest first (paginated)' })
  @OkList(AUDIT_RECORD)
  @Fails(400, 'VALIDATION_ERROR: an unknown or bad query parameter (details.fields)')
  async list(@Query() query: PageQuery): Promise<ListEnvelope<AuditRecord>> {
    const { limit, offset } = pageOf(query);
    const { items, total } = await this.audit.list(limit, offset);
    return paginated(items, { total, limit, offset });
  }
}
