import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '../auth/auth.module';
import { MonitoringController } from './monitoring.controller';
import { MonitoringQueries } from './monitoring-query.service';
import { MonitoringStreams } from './monitoring-stream.service';
import { TelemetryArchive } from './telemetry-archive.service';
import { TelemetryIngest } from './telemetry-ingest.service';
import { TelemetryIntervalEntity } from './telemetry-interval.entity';
import { LeaseModule } from '../lease/lease.module';

/**
 * Cluster-wide live telemetry (issue 12, docs/telemetry.md): consumes every data plane's windows
 * from the bus, persists minutes and hours (TelemetryArchive) and answers the monitoring API.
 * TelemetryIngest is exported for the event layer's detectors (its `series` is the TelemetryStream
 * of libs/events), TelemetryArchive for their hourly baselines.
 */
@Module({
  imports: [LeaseModule, AuthModule, TypeOrmModule.forFeature([TelemetryIntervalEntity])],
  controllers: [MonitoringController],
  providers: [TelemetryIngest, TelemetryArchive, MonitoringQueries, MonitoringStreams],
  exports: [TelemetryIngest, TelemetryArchive],
})
export class MonitoringModule {}
