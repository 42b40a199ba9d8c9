import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ManagementSessionEntity } from './management-session.entity';
import { ManagementSessions } from './management-sessions.service';
import { SessionServiceConfigSource } from './session-service-config';

/**
 * Management sessions through the session service or the gateway's own (decision 23). Below auth
 * (the token guard checks them) and SAML (which starts and ends them).
 */
@Module({
  imports: [TypeOrmModule.forFeature([ManagementSessionEntity])],
  providers: [SessionServiceConfigSource, ManagementSessions],
  exports: [ManagementSessions],
})
export class SessionsModule {}
