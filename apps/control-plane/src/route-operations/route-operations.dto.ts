import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

export const USAGE_DEFAULT_TOP = 10;
export const USAGE_MAX_TOP = 100;

/**
 * Query of the status endpoints and body of the actions: they take no field, and the global
 * validation pipe (forbidNonWhitelisted) refuses any, naming it.
 */
export class NoFields {}

/** `GET /api/routes/:id/rate-limit?top=`. */
export class RateLimitUsageQuery {
  @ApiPropertyOptional({ default: USAGE_DEFAULT_TOP, minimum: 1, maximum: USAGE_MAX_TOP, description: 'How many of the busiest keys to list' })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: `top must be an integer between 1 and ${USAGE_MAX_TOP}` })
  @Min(1, { message: `top must be an integer between 1 and ${USAGE_MAX_TOP}` })
  @Max(USAGE_MAX_TOP, { message: `top must be an integer between 1 and ${USAGE_MAX_TOP}` })
  top?: number;
}
