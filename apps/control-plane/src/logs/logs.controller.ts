import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { LogLine } from '@gateway/logging';
import { Roles } from '../auth/auth.decorators';
import { paginated, type ListEnvelope } from '../common/envelope';
import { Fails, OkList } from '../openapi/openapi-schemas';
import { LOGS_DEFAULT_LIMIT, LogsQuery } from './logs.query';
import { RecentLogsService } from './recent-logs.service';

/** Recent structured log lines of this process's planes (admins; `gateway logs [--follow]`). */
@ApiTags('logs')
@Roles('admin')
@Controller('api/logs')
export class LogsController {
  constructor(private readonly logs: RecentLogsService) {}

  @Get()
  @ApiOperation({ summary: 'Recent log lines, oldest first; follow by passing the last line\'s time as `since`' })
  @OkList(
    {
      type: 'object',
      required: ['time', 'level', 'plane', 'context', 'correlationId', 'message', 'fields'],
      properties: {
        time: { type: 'string', format: 'date-time' },
        level: { type: 'string' },
        plane: { type: 'string', enum: ['control', 'data', 'cli'] },
        context: { type: 'string', nullable: true },
        correlationId: { type: 'string', nullable: true },
        message: { type: 'string' },
        fields: { type: 'object', additionalProperties: true },
        instance: { type: 'string', description: 'The data plane that wrote the line, when it runs in another process' },
      },
    },
    'The newest `limit` matching lines, oldest first; pagination.hasMore: older matching lines were left out',
  )
  @Fails(400, 'VALIDATION_ERROR: an unknown or bad query parameter (details.fields)')
  async list(@Query() query: LogsQuery): Promise<ListEnvelope<LogLine>> {
    const limit = query.limit ?? LOGS_DEFAULT_LIMIT;
    const { lines, total } = await this.logs.query({ limit, level: query.level, since: query.since === undefined ? undefined : new Date(query.since) });
    // The newest `limit` lines: `hasMore` says older matching lines were left out.
    return paginated(lines, { total, limit, offset: 0 });
  }
}
