import { Module, type OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '../auth/auth.module';
import { GatewayEventsModule } from '../gateway-events/gateway-events.module';
import { LeaseModule } from '../lease/lease.module';
import { MonitoringModule } from '../monitoring/monitoring.module';
import { SettingsSectionRegistry } from '../settings/settings-sections.registry';
import { SettingsModule } from '../settings/settings.module';
import { DetectorRunner } from './detector-runner.service';
import { DetectorStateStore } from './detector-state-store.service';
import { DetectorStateEntity } from './detector-state.entity';
import { EventRecordEntity } from './event-record.entity';
import { EventRecorder } from './event-recorder.service';
import { EventStore } from './event-store.service';
import { EventStreams } from './event-stream.service';
import { EventsController } from './events.controller';
import { EVENTS_SETTINGS_SECTION } from './events-settings.section';

/**
 * The event layer (issue 15, docs/events.md): the detectors on the cluster's telemetry, the stored
 * events with GET /api/events and its stream, and the `events` settings section. Delivery to
 * webhooks is the webhooks feature's: it listens to every gateway event.
 */
@Module({
  imports: [TypeOrmModule.forFeature([EventRecordEntity, DetectorStateEntity]), AuthModule, GatewayEventsModule, LeaseModule, MonitoringModule, SettingsModule],
  controllers: [EventsController],
  providers: [EventStore, EventRecorder, EventStreams, DetectorStateStore, DetectorRunner],
})
export class EventsModule implements OnModuleInit {
  constructor(private readonly sections: SettingsSectionRegistry) {}

  onModuleInit(): void {
    this.sections.register(EVENTS_SETTINGS_SECTION);
  }
}
