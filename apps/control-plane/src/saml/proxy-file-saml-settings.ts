import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import type { SsoConfig } from '@gateway/route-model';
import { DomainError } from '../common/domain-error';
import { CONTROL_PLANE_CONFIG } from '../config/config.tokens';
import type { ControlPlaneConfig } from '../config/control-plane-config';
import { readProxyFile } from '../config-file/proxy-file.reader';
import type { SamlSettings, SamlSettingsSource } from './saml-settings';

const REQUIRED: ReadonlyArray<keyof SsoConfig> = ['idpEntityId', 'idpSsoUrl', 'acsUrl'];

/** SAML settings from `authentication.sso` of proxy.yml (spec 2.6); key files relative to the file. */
@Injectable()
export class ProxyFileSamlSettings implements SamlSettingsSource {
  constructor(@Inject(CONTROL_PLANE_CONFIG) private readonly config: ControlPlaneConfig) {}

  async current(): Promise<SamlSettings | undefined> {
    const file = await readProxyFile(this.config.configPath);
    // An invalid proxy.yml is reported by the reconciler; SSO stays off until it is fixed.
    if (!file.ok) return undefined;
    const sso = file.authentication?.sso;
    if (sso === undefined || !sso.enabled) return undefined;
    return this.toSettings(sso);
  }

  private async toSettings(sso: SsoConfig): Promise<SamlSettings> {
    const missing = REQUIRED.filter((field) => sso[field] === undefined).map((field) => `authentication.sso.${field}`);
    if (sso.idpCertificates.length === 0) missing.push('authentication.sso.idpCertificates');
    if (missing.length > 0) throw new DomainError('SSO_NOT_CONFIGURED', `SAML single sign-on is enabled but ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} missing`);
    const acsUrl = sso.acsUrl as string;
    const settings: SamlSettings = {
      idpEntityId: sso.idpEntityId as string,
      idpSsoUrl: sso.idpSsoUrl as string,
      idpCertificates: sso.idpCertificates,
      spEntityId: sso.spEntityId ?? new URL('/api/auth/saml/metadata', acsUrl).href,
      acsUrl,
      clockSkewMs: sso.clockSkewSeconds * 1000,
      defaultReturnUrl: sso.returnUrl ?? '/',
      allowedReturnUrls: sso.allowedReturnUrls,
      adminGroups: sso.adminGroups,
      // proxy.yml has no switch for it: unsolicited responses need the settings API's allowIdpInitiated.
      allowIdpInitiated: false,
    };
    if (sso.spPrivateKeyFile !== undefined) settings.spPrivateKey = await this.readPem(sso.spPrivateKeyFile, 'spPrivateKeyFile');
    if (sso.spCertificateFile !== undefined) settings.spCertificate = await this.readPem(sso.spCertificateFile, 'spCertificateFile');
    if (sso.emailAttribute !== undefined) settings.emailAttribute = sso.emailAttribute;
    if (sso.nameAttribute !== undefined) settings.nameAttribute = sso.nameAttribute;
    if (sso.groupsAttribute !== undefined) settings.groupsAttribute = sso.groupsAttribute;
    return settings;
  }

  private async readPem(file: string, field: string): Promise<string> {
    try {
      return await readFile(path.resolve(path.dirname(this.config.configPath), file), 'utf8');
    } catch (error) {
      throw new DomainError('SSO_NOT_CONFIGURED', `authentication.sso.${field} cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
    }
  }
}
