import { X509Certificate } from 'node:crypto';
import { ArrayMaxSize, IsArray, IsBoolean, IsInt, IsOptional, IsString, IsUrl, Length, Max, Min, ValidateBy, ValidateIf } from 'class-validator';
import type { SettingsSection } from '../settings/settings-section';
import { Trimmed } from '../settings/settings-sanitizers';
import { MAX_IDP_METADATA_CHARS, parseIdpMetadata } from './idp-metadata';

const URL_OPTIONS = { protocols: ['http', 'https'], require_protocol: true, require_tld: false };
const isUrl = (field: string) => IsUrl(URL_OPTIONS, { message: `${field} must be an http(s) URL` });

function isPemCertificate(value: unknown): boolean {
  if (typeof value !== 'string' || !value.includes('-----BEGIN CERTIFICATE-----')) return false;
  try {
    new X509Certificate(value);
    return true;
  } catch {
    return false;
  }
}

const PemCertificate = (field: string, each = false) =>
  ValidateBy({ name: 'isPemCertificate', validator: { validate: isPemCertificate, defaultMessage: () => `${field} must be PEM certificates (-----BEGIN CERTIFICATE-----)` } }, { each });

/** Without metadata, the IdP's own fields are required once SSO is on. */
const needsIdpField = (settings: SsoSettings): boolean => settings.enabled && settings.idpMetadataXml === null;

/**
 * The `sso` section of /api/settings (issue 14): the SAML configuration, edited live. When its
 * `enabled` is true it replaces `authentication.sso` of proxy.yml on every control plane; the
 * IdP side comes from the fields or from imported IdP metadata (fields win over metadata).
 * `spPrivateKey` is a secret: sealed at rest, write-only, shown masked.
 */
export class SsoSettings {
  @IsBoolean({ message: 'enabled must be true or false' })
  enabled!: boolean;

  /** An IdP's EntityDescriptor XML: entity id, SSO/SLO URLs and signing certificates are read from it. */
  @IsOptional()
  @Trimmed()
  @IsString({ message: 'idpMetadataXml must be a string (the IdP metadata XML) or null' })
  @Length(1, MAX_IDP_METADATA_CHARS, { message: `idpMetadataXml must be at most ${MAX_IDP_METADATA_CHARS / 1024} KiB` })
  @ValidateBy({
    name: 'isIdpMetadata',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && !('problem' in parseIdpMetadata(value)),
      defaultMessage: (args) => {
        const parsed = parseIdpMetadata(String(args?.value ?? ''));
        return `idpMetadataXml ${'problem' in parsed ? parsed.problem : 'cannot be used'}`;
      },
    },
  })
  idpMetadataXml!: string | null;

  @ValidateIf((s: SsoSettings) => needsIdpField(s) || s.idpEntityId !== null)
  @Trimmed()
  @IsString({ message: 'idpEntityId is required when SSO is enabled without idpMetadataXml' })
  @Length(1, 1024, { message: 'idpEntityId must be 1 to 1024 characters' })
  idpEntityId!: string | null;

  @ValidateIf((s: SsoSettings) => needsIdpField(s) || s.idpSsoUrl !== null)
  @Trimmed()
  @isUrl('idpSsoUrl')
  idpSsoUrl!: string | null;

  /** The IdP's single logout endpoint (HTTP-Redirect); null: logout stays local. */
  @IsOptional()
  @Trimmed()
  @isUrl('idpSloUrl')
  idpSloUrl!: string | null;

  @IsArray({ message: 'idpCertificates must be an array of PEM certificates' })
  @ArrayMaxSize(10, { message: 'idpCertificates may hold at most 10 certificates' })
  @ValidateBy({
    name: 'idpCertificatesGiven',
    validator: {
      validate: (value: unknown, args) => !needsIdpField(args?.object as SsoSettings) || (Array.isArray(value) && value.length > 0),
      defaultMessage: () => 'idpCertificates needs at least one certificate when SSO is enabled without idpMetadataXml',
    },
  })
  @PemCertificate('idpCertificates', true)
  idpCertificates!: string[];

  @IsOptional()
  @Trimmed()
  @IsString({ message: 'spEntityId must be a string or null (default <acsUrl origin>/api/auth/saml/metadata)' })
  @Length(1, 1024, { message: 'spEntityId must be 1 to 1024 characters' })
  spEntityId!: string | null;

  @ValidateIf((s: SsoSettings) => s.enabled || s.acsUrl !== null)
  @Trimmed()
  @isUrl('acsUrl')
  acsUrl!: string | null;

  /** Published in the SP metadata beside the (secret) key that signs our requests. */
  @IsOptional()
  @PemCertificate('spCertificate')
  spCertificate!: string | null;

  @IsInt({ message: 'clockSkewSeconds must be an integer' })
  @Min(0, { message: 'clockSkewSeconds must be between 0 and 300' })
  @Max(300, { message: 'clockSkewSeconds must be between 0 and 300' })
  clockSkewSeconds!: number;

  @IsOptional()
  @Trimmed()
  @IsString({ message: 'returnUrl must be a string (a path on this origin or an allowed URL) or null' })
  @Length(1, 2048, { message: 'returnUrl must be 1 to 2048 characters' })
  returnUrl!: string | null;

  @IsArray({ message: 'allowedReturnUrls must be an array of URLs' })
  @ArrayMaxSize(50, { message: 'allowedReturnUrls may hold at most 50 URLs' })
  @IsUrl(URL_OPTIONS, { each: true, message: 'allowedReturnUrls entries must be http(s) URLs' })
  allowedReturnUrls!: string[];

  /** Attribute mapping: which attributes give the email (default the NameID), the name and the groups. */
  @IsOptional()
  @Trimmed()
  @IsString({ message: 'emailAttribute must be a string or null (the NameID)' })
  @Length(1, 1024, { message: 'emailAttribute must be 1 to 1024 characters' })
  emailAttribute!: string | null;

  @IsOptional()
  @Trimmed()
  @IsString({ message: 'nameAttribute must be a string or null' })
  @Length(1, 1024, { message: 'nameAttribute must be 1 to 1024 characters' })
  nameAttribute!: string | null;

  @IsOptional()
  @Trimmed()
  @IsString({ message: 'groupsAttribute must be a string or null' })
  @Length(1, 1024, { message: 'groupsAttribute must be 1 to 1024 characters' })
  groupsAttribute!: string | null;

  /** Any of these groups maps to the admin role; everyone else is a user. */
  @IsArray({ message: 'adminGroups must be an array of group names' })
  @ArrayMaxSize(100, { message: 'adminGroups may hold at most 100 groups' })
  @IsString({ each: true, message: 'adminGroups entries must be strings' })
  @Length(1, 256, { each: true, message: 'adminGroups entries must be 1 to 256 characters' })
  adminGroups!: string[];

  /** Unsolicited responses (no InResponseTo) start a login only when this is true (login CSRF risk). */
  @IsBoolean({ message: 'allowIdpInitiated must be true or false' })
  allowIdpInitiated!: boolean;
}

export const SSO_SECTION_KEY = 'sso';

export const SSO_SETTINGS_SECTION: SettingsSection<SsoSettings> = {
  key: SSO_SECTION_KEY,
  schema: SsoSettings,
  defaults: () => ({
    enabled: false,
    idpMetadataXml: null,
    idpEntityId: null,
    idpSsoUrl: null,
    idpSloUrl: null,
    idpCertificates: [],
    spEntityId: null,
    acsUrl: null,
    spCertificate: null,
    clockSkewSeconds: 60,
    returnUrl: null,
    allowedReturnUrls: [],
    emailAttribute: null,
    nameAttribute: null,
    groupsAttribute: null,
    adminGroups: [],
    allowIdpInitiated: false,
  }),
  secretFields: ['spPrivateKey'],
};
