import { Module, type OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '../auth/auth.module';
import { AuthMethodsController } from './auth-methods.controller';
import { UserEntity } from '../users/user.entity';
import { SessionsModule } from '../sessions/sessions.module';
import { SettingsModule } from '../settings/settings.module';
import { SettingsSectionRegistry } from '../settings/settings-sections.registry';
import { UsersModule } from '../users/users.module';
import { LiveSamlSettings } from './live-saml-settings';
import { SSO_SETTINGS_SECTION } from './sso-settings.section';
import { ProxyFileSamlSettings } from './proxy-file-saml-settings';
import { SamlAssertionEntity } from './saml-assertion.entity';
import { SamlAssertionLedger } from './saml-assertion-ledger.service';
import { SamlLoginCodeEntity } from './saml-login-code.entity';
import { SamlLoginCodes } from './saml-login-codes.service';
import { SamlLoginService } from './saml-login.service';
import { SamlLogoutService } from './saml-logout.service';
import { LogoutExtensions } from '../auth/logout-extensions';
import { SamlRequestEntity } from './saml-request.entity';
import { SamlRequestStore } from './saml-request-store.service';
import { SAML_SETTINGS_SOURCE } from './saml-settings';
import { SamlController } from './saml.controller';
import { SamlStrategy } from './saml.strategy';
import { SsoUserProvisioner } from './sso-user-provisioner.service';

/** SAML 2.0 single sign-on for management users (docs/sso.md). */
@Module({
  imports: [AuthModule, UsersModule, SettingsModule, SessionsModule, TypeOrmModule.forFeature([SamlRequestEntity, SamlAssertionEntity, SamlLoginCodeEntity, UserEntity])],
  controllers: [SamlController, AuthMethodsController],
  providers: [
    // The one reader of the configuration: the settings API's sso section, else proxy.yml.
    ProxyFileSamlSettings,
    { provide: SAML_SETTINGS_SOURCE, useClass: LiveSamlSettings },
    SamlRequestStore,
    SamlAssertionLedger,
    SamlLoginCodes,
    SsoUserProvisioner,
    SamlStrategy,
    SamlLoginService,
    SamlLogoutService,
  ],
})
export class SamlModule implements OnModuleInit {
  constructor(
    private readonly sections: SettingsSectionRegistry,
    private readonly logoutExtensions: LogoutExtensions,
    private readonly singleLogout: SamlLogoutService,
  ) {}

  /**
   * The sso section of /api/settings is this feature's (schema, defaults and secret live here), and
   * so is single logout on POST /api/auth/logout.
   */
  onModuleInit(): void {
    this.sections.register(SSO_SETTINGS_SECTION);
    this.logoutExtensions.register((user) => this.singleLogout.sloUrlFor(user));
  }
}
