import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { PageQuery } from '../common/page.query';
import { INCIDENT_STATUSES, type IncidentStatus } from './ai-incident.entity';

export class IncidentQuery extends PageQuery {
  @ApiPropertyOptional({ enum: INCIDENT_STATUSES })
  @IsOptional()
  @IsIn(INCIDENT_STATUSES, { message: `status must be one of ${INCIDENT_STATUSES.join(', ')}` })
  status?: IncidentStatus;
}
