import { Controller, Get, Query } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { Roles } from '../auth/auth.decorators';
import { paginated, type ListEnvelope } from '../common/envelope';
import { AuditLogService, type AuditRecord } from './audit-log.service';

export class AuditLogQuery {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  offset?: number;
}

/** Admins read the audit log, newest first (spec 6.4: who, what, when, from where). */
@Roles('admin')
@Controller('api/audit-log')
export class AuditLogController {
  constructor(private readonly audit: AuditLogService) {}

  @Get()
  async list(@Query() query: AuditLogQuery): Promise<ListEnvelope<AuditRecord>> {
    const limit = query.limit ?? 10;
    const offset = query.offset ?? 0;
    const { items, total } = await this.audit.list(limit, offset);
    return paginated(items, { total, limit, offset });
  }
}
