import { Controller, Get, Headers, Query, Res } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { ApiTags } from '@nestjs/swagger';
import { CurrentUser, Roles } from '../auth/auth.decorators';
import type { AuthenticatedUser } from '../auth/authenticated-user';
import { ok, type SuccessEnvelope } from '../common/envelope';
import type { DataPlaneReport } from './cluster-series';
import type { MonitoringSummary } from './monitoring-summary';
import type { SeriesPoint } from './monitoring-series';
import { MonitoringQueries } from './monitoring-query.service';
import { MonitoringStreams } from './monitoring-stream.service';
import { DataPlanesQuery, SeriesRequestQuery, SummaryQuery } from './monitoring.dto';
import { MonitoringDocs } from './monitoring.openapi';

/** Cluster-wide live telemetry (issue 12; docs/telemetry.md); admin only. */
@ApiTags('monitoring')
@Roles('admin')
@Controller('api/monitoring')
export class MonitoringController {
  constructor(
    private readonly queries: MonitoringQueries,
    private readonly streams: MonitoringStreams,
  ) {}

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

  @MonitoringDocs.stream()
  @Get('stream')
  stream(@Query() _query: DataPlanesQuery, @CurrentUser() user: AuthenticatedUser, @Headers('last-event-id') lastEventId: string | undefined, @Res() res: ServerResponse): void {
    this.streams.serve(res, user, lastEventId);
  }
}
