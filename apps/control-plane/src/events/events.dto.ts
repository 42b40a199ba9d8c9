import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsISO8601, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { EVENT_SEVERITIES } from '@gateway/events';
import { PageQuery } from '../common/page.query';

/** `GET /api/events?type=&severity=&route=&from=&to=&limit=&offset=`. */
export class EventsQuery extends PageQuery {
  @ApiPropertyOptional({ description: 'An event kind: ERROR_RATE_SPIKE, circuit_breaker.opened, webhook.endpoint_disabled...' })
  @IsOptional()
  @IsString({ message: 'type must be an event kind' })
  @Matches(/^[A-Za-z0-9_.-]{1,100}$/, { message: 'type must be an event kind (letters, digits, _ . -)' })
  type?: string;

  @ApiPropertyOptional({ enum: EVENT_SEVERITIES })
  @IsOptional()
  @IsIn(EVENT_SEVERITIES as unknown as string[], { message: `severity must be one of ${EVENT_SEVERITIES.join(', ')}` })
  severity?: string;

  @ApiPropertyOptional({ description: 'A route id (the route a detector event is about, or the first route of a breaker opening)' })
  @IsOptional()
  @IsString({ message: 'route must be a route id' })
  @MaxLength(100, { message: 'route must be a route id' })
  route?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Events raised at or after' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'from must be an ISO 8601 date-time' })
  from?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Events raised at or before' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'to must be an ISO 8601 date-time' })
  to?: string;
}

/** `GET /api/events/stream` takes no query parameter (never a token in the URL). */
export class EventStreamQuery {}
