import { createPrivateKey } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DomainError } from '../common/domain-error';
import { LiveSettings } from '../settings/live-settings.service';
import { parseIdpMetadata } from './idp-metadata';
import { ProxyFileSamlSettings } from './proxy-file-saml-settings';
import type { SamlSettings, SamlSettingsSource } from './saml-settings';
import { SSO_SECTION_KEY, type SsoSettings } from './sso-settings.section';

/**
 * The SAML settings in effect: the `sso` section of /api/settings when it is enabled (live on
 * every control plane through LiveSettings), otherwise `authentication.sso` of proxy.yml.
 * The section was validated when written, so required fields are present here.
 */
@Injectable()
export class LiveSamlSettings implements SamlSettingsSource {
  constructor(
    private readonly live: LiveSettings,
    private readonly proxyFile: ProxyFileSamlSettings,
  ) {}

  async current(): Promise<SamlSettings | undefined> {
    const section = this.live.section(SSO_SECTION_KEY) as SsoSettings | undefined;
    if (section?.enabled !== true) return this.proxyFile.current();
    return toSamlSettings(section, this.live.secret(SSO_SECTION_KEY, 'spPrivateKey'));
  }
}

/** Explicit fields win over the imported metadata (an operator's correction stays in effect). */
export function toSamlSettings(section: SsoSettings, spPrivateKey: string | undefined): SamlSettings | undefined {
  const parsed = section.idpMetadataXml === null ? undefined : parseIdpMetadata(section.idpMetadataXml);
  const metadata = parsed === undefined || 'problem' in parsed ? undefined : parsed;
  const idpEntityId = section.idpEntityId ?? metadata?.entityId;
  const idpSsoUrl = section.idpSsoUrl ?? metadata?.ssoUrl;
  const idpCertificates = section.idpCertificates.length > 0 ? section.idpCertificates : (metadata?.certificates ?? []);
  if (idpEntityId === undefined || idpSsoUrl === undefined || idpCertificates.length === 0 || section.acsUrl === null) return undefined;
  const settings: SamlSettings = {
    idpEntityId,
    idpSsoUrl,
    idpCertificates,
    spEntityId: section.spEntityId ?? new URL('/api/auth/saml/metadata', section.acsUrl).href,
    acsUrl: section.acsUrl,
    clockSkewMs: section.clockSkewSeconds * 1000,
    defaultReturnUrl: section.returnUrl ?? '/',
    allowedReturnUrls: section.allowedReturnUrls,
    adminGroups: section.adminGroups,
    allowIdpInitiated: section.allowIdpInitiated,
  };
  const idpSloUrl = section.idpSloUrl ?? metadata?.sloUrl;
  if (idpSloUrl !== undefined) settings.idpSloUrl = idpSloUrl;
  if (spPrivateKey !== undefined) settings.spPrivateKey = usablePrivateKey(spPrivateKey);
  if (section.spCertificate !== null) settings.spCertificate = section.spCertificate;
  if (section.emailAttribute !== null) settings.emailAttribute = section.emailAttribute;
  if (section.nameAttribute !== null) settings.nameAttribute = section.nameAttribute;
  if (section.groupsAttribute !== null) settings.groupsAttribute = section.groupsAttribute;
  return settings;
}

/** Secrets are checked for type only when written: a key that does not parse is named here (503), not a 500 later. */
function usablePrivateKey(pem: string): string {
  try {
    createPrivateKey(pem);
    return pem;
  } catch {
    throw new DomainError('SSO_NOT_CONFIGURED', 'sso.spPrivateKey in the settings is not a PEM private key: replace it (PUT /api/settings)');
  }
}
