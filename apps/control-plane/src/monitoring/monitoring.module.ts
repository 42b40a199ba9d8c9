import { Module } from '@nestjs/common';
import { MonitoringController } from './monitoring.controller';
import { MonitoringQueries } from './monitoring-query.service';
import { TelemetryIngest } from './telemetry-ingest.service';

/**
 * Cluster-wide live telemetry (issue 12, docs/telemetry.md): consumes every data plane's windows
 * from the bus and answers the monitoring API. TelemetryIngest is exported for the event layer's
 * detectors (its `series` is the TelemetryStream of libs/events).
 */
@Module({
  controllers: [MonitoringController],
  providers: [TelemetryIngest, MonitoringQueries],
  exports: [TelemetryIngest],
})
export class MonitoringModule {}
