import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsISO8601, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { SERIES_METRICS, SERIES_STEPS, type SeriesMetric, type SeriesStep } from './monitoring-series';

/** `1m`..`15m` or `10s`..`900s`: the reach of the 1-second series. */
const WINDOW_PATTERN = /^(?:[1-9]\d?s|[1-8]\d\ds|900s|(?:[1-9]|1[0-5])m)$/;

/** `GET /api/monitoring/summary?window=5m`. */
export class SummaryQuery {
  @ApiPropertyOptional({ default: '5m', example: '5m', description: 'Seconds (`30s`) or minutes (`5m`), at most 15 minutes' })
  @IsOptional()
  @IsString({ message: 'window must be a duration such as 30s or 5m (at most 15m)' })
  @Matches(WINDOW_PATTERN, { message: 'window must be a duration such as 30s or 5m (at most 15m)' })
  window?: string;
}

/** `GET /api/monitoring/series?route=&metric=&from=&to=&step=`. */
export class SeriesRequestQuery {
  @ApiPropertyOptional({ description: 'A route id; omitted: the cluster total' })
  @IsOptional()
  @IsString({ message: 'route must be a route id' })
  @MaxLength(512, { message: 'route must be a route id' })
  route?: string;

  @ApiProperty({ enum: Object.keys(SERIES_METRICS) })
  @IsIn(Object.keys(SERIES_METRICS), { message: `metric must be one of ${Object.keys(SERIES_METRICS).join(', ')}` })
  metric!: SeriesMetric;

  @ApiPropertyOptional({ format: 'date-time', description: 'Default: 5 minutes (step 1s) or 1 hour (step 1m) before `to`; at most 15 minutes (1s) or 24 hours (1m) before it, earlier is moved there' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'from must be an ISO 8601 date-time' })
  from?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Default: now' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'to must be an ISO 8601 date-time' })
  to?: string;

  @ApiPropertyOptional({ enum: Object.keys(SERIES_STEPS), default: '1s' })
  @IsOptional()
  @IsIn(Object.keys(SERIES_STEPS), { message: `step must be one of ${Object.keys(SERIES_STEPS).join(', ')}` })
  step?: SeriesStep;
}

/** `GET /api/monitoring/data-planes` and `/stream` take no field; the validation pipe refuses any, naming it. */
export class DataPlanesQuery {}

/** Parses a validated `window` (`30s`, `5m`) to ms. */
export function windowMs(window: string): number {
  const n = Number(window.slice(0, -1));
  return window.endsWith('m') ? n * 60_000 : n * 1000;
}
