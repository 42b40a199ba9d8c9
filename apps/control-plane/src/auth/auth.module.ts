import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { TypeOrmModule } from '@nestjs/typeorm';
import { UsersModule } from '../users/users.module';
import { AuthController } from './auth.controller';
import { AuthenticationGuard } from './authentication.guard';
import { JwtStrategy } from './jwt.strategy';
import { LoginService } from './login.service';
import { RevokedTokenEntity } from './revoked-token.entity';
import { RolesGuard } from './roles.guard';
import { SessionController } from './session.controller';
import { TokenIssuer } from './token-issuer.service';

/** Login, token verification and the global guards (authentication first, then roles). */
@Module({
  imports: [PassportModule, UsersModule, TypeOrmModule.forFeature([RevokedTokenEntity])],
  controllers: [AuthController, SessionController],
  providers: [
    JwtStrategy,
    TokenIssuer,
    LoginService,
    { provide: APP_GUARD, useClass: AuthenticationGuard },
    { provide: APP_GUARD, useClass: RolesGuard },
  ],
  exports: [TokenIssuer],
})
export class AuthModule {}
