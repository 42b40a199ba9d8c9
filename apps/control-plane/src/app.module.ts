import { Module, type DynamicModule } from '@nestjs/common';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { MessageBus } from '@gateway/events';
import { ApiKeysModule } from './api-keys/api-keys.module';
import { AuditModule } from './audit/audit.module';
import { ApiFallbackModule } from './auth/api-fallback.module';
import { AuthModule } from './auth/auth.module';
import { ClusterModule } from './cluster/cluster.module';
import { ConfigFileModule } from './config-file/config-file.module';
import { ConfigModule } from './config/config.module';
import type { ControlPlaneConfig } from './config/control-plane-config';
import { DatabaseModule } from './database/database.module';
import { EncryptionModule } from './encryption/encryption.module';
import { EventsModule } from './events/events.module';
import { dataSourceOptions } from './database/data-source-options';
import { HealthModule } from './health/health.module';
import type { LogRingBuffer } from '@gateway/logging';
import { LogsModule } from './logs/logs.module';
import { MonitoringModule } from './monitoring/monitoring.module';
import { RouteOperationsModule } from './route-operations/route-operations.module';
import { RoutesModule } from './routes/routes.module';
import { SamlModule } from './saml/saml.module';
import { SettingsModule } from './settings/settings.module';
import { UpstreamsModule } from './upstreams/upstreams.module';
import { UsersModule } from './users/users.module';
import { WebhooksModule } from './webhooks/webhooks.module';
import { RunbooksModule } from './runbooks/runbooks.module';
import { AiIncidentsModule } from './ai-incidents/ai-incidents.module';
import { AiModule } from './ai/ai.module';

@Module({})
export class AppModule {
  static register(config: ControlPlaneConfig, bus: MessageBus, logs: LogRingBuffer): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.register(config, bus),
        // Gateway events between features (gateway-events/gateway-event.ts): webhooks, later detectors and runbooks.
        EventEmitterModule.forRoot(),
        // start() has migrated already (migrate(): under a lock on PostgreSQL).
        TypeOrmModule.forRoot({ ...dataSourceOptions(config.database), retryAttempts: 0 }),
        DatabaseModule,
        EncryptionModule,
        AuditModule,
        SettingsModule,
        UsersModule,
        AuthModule,
        SamlModule,
        UpstreamsModule,
        RoutesModule,
        RouteOperationsModule,
        ApiKeysModule,
        ClusterModule,
        ConfigFileModule,
        HealthModule.register(config.standalone),
        LogsModule.register(logs),
        MonitoringModule,
        WebhooksModule,
        EventsModule,
        RunbooksModule,
        AiIncidentsModule,
        AiModule,
        // Last: its catch-all `/api/*` must be matched after every real controller.
        ApiFallbackModule,
      ],
    };
  }
}
