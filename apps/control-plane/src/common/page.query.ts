import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/** Decision 5's paging parameters (`limit` 1-100, default 10; `offset`); lists extend it with their filters. */
export class PageQuery {
  @ApiPropertyOptional({ default: 10, minimum: 1, maximum: 100 })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'limit must be an integer' })
  @Min(1, { message: 'limit must be between 1 and 100' })
  @Max(100, { message: 'limit must be between 1 and 100' })
  limit?: number;

  @ApiPropertyOptional({ default: 0, minimum: 0 })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'offset must be an integer' })
  @Min(0, { message: 'offset must be 0 or more' })
  offset?: number;
}

/** The defaults applied. */
export function pageOf(query: PageQuery): { limit: number; offset: number } {
  return { limit: query.limit ?? 10, offset: query.offset ?? 0 };
}
