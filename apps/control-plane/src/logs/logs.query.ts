import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsISO8601, IsOptional, Max, Min } from 'class-validator';
import { LOG_LINE_LEVELS, LOGS_MAX_LIMIT, type LogLineLevel } from '@gateway/logging';

export const LOGS_DEFAULT_LIMIT = 100;

/** `GET /api/logs?limit=&level=&since=`. */
export class LogsQuery {
  @ApiPropertyOptional({ default: LOGS_DEFAULT_LIMIT, minimum: 1, maximum: LOGS_MAX_LIMIT, description: 'The newest N matching lines' })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'limit must be an integer' })
  @Min(1, { message: `limit must be between 1 and ${LOGS_MAX_LIMIT}` })
  @Max(LOGS_MAX_LIMIT, { message: `limit must be between 1 and ${LOGS_MAX_LIMIT}` })
  limit?: number;

  @ApiPropertyOptional({ enum: LOG_LINE_LEVELS, description: 'This level and more severe' })
  @IsOptional()
  @IsIn(LOG_LINE_LEVELS as unknown as LogLineLevel[], { message: `level must be one of: ${LOG_LINE_LEVELS.join(', ')}` })
  level?: LogLineLevel;

  @ApiPropertyOptional({ format: 'date-time', description: 'Only lines strictly after this instant (ISO 8601)' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'since must be an ISO 8601 timestamp' })
  since?: string;
}
