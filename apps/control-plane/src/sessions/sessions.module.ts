import { Module, type OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SettingsModule } from '../settings/settings.module';
import { SettingsSectionRegistry } from '../settings/settings-sections.registry';
import { ManagementSessionEntity } from './management-session.entity';
import { ManagementSessions } from './management-sessions.service';
import { SessionServiceConfigSource } from './session-service-config';
import { SESSION_SERVICE_SETTINGS_SECTION } from './session-service-settings.section';

/**
 * Management sessions through the session service or the gateway's own (decision 23). Below auth
 * (the token guard checks them) and SAML (which starts and ends them); owns the `sessionService`
 * settings section.
 */
@Module({
  imports: [SettingsModule, TypeOrmModule.forFeature([ManagementSessionEntity])],
  providers: [SessionServiceConfigSource, ManagementSessions],
  exports: [ManagementSessions],
})
export class SessionsModule implements OnModuleInit {
  constructor(private readonly sections: SettingsSectionRegistry) {}

  onModuleInit(): void {
    this.sections.register(SESSION_SERVICE_SETTINGS_SECTION);
  }
}
