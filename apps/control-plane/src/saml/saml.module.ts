import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '../auth/auth.module';
import { AuthMethodsController } from './auth-methods.controller';
import { UserEntity } from '../users/user.entity';
import { UsersModule } from '../users/users.module';
import { ProxyFileSamlSettings } from './proxy-file-saml-settings';
import { SamlAssertionEntity } from './saml-assertion.entity';
import { SamlAssertionLedger } from './saml-assertion-ledger.service';
import { SamlLoginCodeEntity } from './saml-login-code.entity';
import { SamlLoginCodes } from './saml-login-codes.service';
import { SamlLoginService } from './saml-login.service';
import { SamlRequestEntity } from './saml-request.entity';
import { SamlRequestStore } from './saml-request-store.service';
import { SAML_SETTINGS_SOURCE } from './saml-settings';
import { SamlController } from './saml.controller';
import { SamlStrategy } from './saml.strategy';
import { SsoUserProvisioner } from './sso-user-provisioner.service';

/** SAML 2.0 single sign-on for management users (docs/sso.md). */
@Module({
  imports: [AuthModule, UsersModule, TypeOrmModule.forFeature([SamlRequestEntity, SamlAssertionEntity, SamlLoginCodeEntity, UserEntity])],
  controllers: [SamlController, AuthMethodsController],
  providers: [
    // The settings API can replace this provider later; nothing else reads the configuration.
    { provide: SAML_SETTINGS_SOURCE, useClass: ProxyFileSamlSettings },
    SamlRequestStore,
    SamlAssertionLedger,
    SamlLoginCodes,
    SsoUserProvisioner,
    SamlStrategy,
    SamlLoginService,
  ],
})
export class SamlModule {}
