import { Controller, Get, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Roles } from '../auth/auth.decorators';
import { ok, type SuccessEnvelope } from '../common/envelope';
import type { DataPlaneReport } from './cluster-series';
import type { MonitoringSummary } from './monitoring-summary';
import type { SeriesPoint } from './monitoring-series';
import { MonitoringQueries } from './monitoring-query.service';
import { DataPlanesQuery, SeriesRequestQuery, SummaryQuery } from './monitoring.dto';
import { MonitoringDocs } from './monitoring.openapi';

/** Cluster-wide live telemetry (issue 12; docs/telemetry.md); admin only. */
@ApiTags('monitoring')
@Roles('admin')
@Controller('api/monitoring')
export class MonitoringController {
  constructor(private readonly queries: MonitoringQueries) {}

  @MonitoringDocs.summary()
  @Get('summary')
  summary(@Query() query: SummaryQuery): SuccessEnvelope<MonitoringSummary> {
    return ok(this.queries.summary(query.window));
  }

  @MonitoringDocs.series()
  @Get('series')
  series(@Query() query: SeriesRequestQuery): SuccessEnvelope<{ route: string | null; metric: string; step: string; points: SeriesPoint[] }> {
    return ok(this.queries.series(query));
  }

  @MonitoringDocs.dataPlanes()
  @Get('data-planes')
  dataPlanes(@Query() _query: DataPlanesQuery): SuccessEnvelope<DataPlaneReport[]> {
    return ok(this.queries.dataPlanes());
  }
}
