import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiThrottlerGuard } from '../throttling/api-throttler.guard';
import { SettingsModule } from '../settings/settings.module';
import { ThrottlingModule } from '../throttling/throttling.module';
import { UsersModule } from '../users/users.module';
import { AuthController } from './auth.controller';
import { AuthenticationGuard } from './authentication.guard';
import { CookieSessions } from './cookie-session.service';
import { CsrfGuard } from './csrf.guard';
import { CsrfTokens } from './csrf-tokens.service';
import { JwtStrategy } from './jwt.strategy';
import { LoginService } from './login.service';
import { LogoutService } from './logout.service';
import { RevokedTokenEntity } from './revoked-token.entity';
import { RolesGuard } from './roles.guard';
import { SessionController } from './session.controller';
import { TokenIssuer } from './token-issuer.service';
import { TokenRevocationService } from './token-revocation.service';
import { LeaseModule } from '../lease/lease.module';
import { SessionsModule } from '../sessions/sessions.module';
import { LogoutExtensions } from './logout-extensions';

/** Login, logout, token verification and the global guards (limits, authentication, roles). */
@Module({
  imports: [LeaseModule, SessionsModule, PassportModule, UsersModule, SettingsModule, ThrottlingModule, TypeOrmModule.forFeature([RevokedTokenEntity])],
  controllers: [AuthController, SessionController],
  providers: [
    JwtStrategy,
    TokenIssuer,
    LoginService,
    LogoutService,
    LogoutExtensions,
    TokenRevocationService,
    CsrfTokens,
    CookieSessions,
    // Guards run in this order: limits first (anonymous floods count), then authentication, the
    // CSRF check of cookie sessions, then roles.
    { provide: APP_GUARD, useClass: ApiThrottlerGuard },
    { provide: APP_GUARD, useClass: AuthenticationGuard },
    { provide: APP_GUARD, useClass: CsrfGuard },
    { provide: APP_GUARD, useClass: RolesGuard },
  ],
  // TokenRevocationService: long-lived responses (the monitoring stream) end when their token is revoked;
  // CookieSessions: an SSO login ends in the same browser session as a password one.
  // LogoutExtensions: SAML adds single logout to POST /api/auth/logout without auth importing it.
  exports: [TokenIssuer, TokenRevocationService, CookieSessions, LogoutExtensions],
})
export class AuthModule {}
