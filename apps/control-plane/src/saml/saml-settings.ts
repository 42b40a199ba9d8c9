/** What the SAML service provider needs, whatever stores it (the `sso` section of /api/settings, or proxy.yml). */
export interface SamlSettings {
  /** The IdP's entity id: the Issuer of every accepted response and assertion. */
  idpEntityId: string;
  idpSsoUrl: string;
  /** The IdP's single logout endpoint (HTTP-Redirect); without it, logout is local only. */
  idpSloUrl?: string;
  /** PEM certificates; a signature by any of them is accepted (key rotation). */
  idpCertificates: string[];
  spEntityId: string;
  /** Our assertion consumer URL: the Destination and Recipient every response must name. */
  acsUrl: string;
  /** Signs AuthnRequests when set. */
  spPrivateKey?: string;
  spCertificate?: string;
  clockSkewMs: number;
  /** Where a login returns when the client names no return URL. */
  defaultReturnUrl: string;
  /** Absolute return URLs (or origins) accepted next to same-origin paths. */
  allowedReturnUrls: string[];
  emailAttribute?: string;
  nameAttribute?: string;
  groupsAttribute?: string;
  adminGroups: string[];
  /** Unsolicited (IdP-initiated) responses start a login; off by default (login CSRF). */
  allowIdpInitiated: boolean;
}

/**
 * The one place the SAML code asks for its configuration, read at every login so a change
 * applies without a restart. `undefined`: SSO is off.
 */
export interface SamlSettingsSource {
  current(): Promise<SamlSettings | undefined>;
}

export const SAML_SETTINGS_SOURCE = Symbol('SAML_SETTINGS_SOURCE');
