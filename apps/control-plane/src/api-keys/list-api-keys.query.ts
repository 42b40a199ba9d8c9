import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { PageQuery } from '../common/page.query';
import { API_KEY_STATUSES, type ApiKeyStatus } from './api-key-status';

/** Decision 5's paging, plus `status` (absent: every key). Unknown parameters are refused. */
export class ListApiKeysQuery extends PageQuery {
  @ApiPropertyOptional({ enum: API_KEY_STATUSES, description: 'Only keys in this state' })
  @IsOptional()
  @IsIn(API_KEY_STATUSES as unknown as ApiKeyStatus[], { message: `status must be one of: ${API_KEY_STATUSES.join(', ')}` })
  status?: ApiKeyStatus;
}
