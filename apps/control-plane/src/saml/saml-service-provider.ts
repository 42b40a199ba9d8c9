import { ValidateInResponseTo, type CacheProvider, type SamlConfig } from '@node-saml/passport-saml';
import type { SamlSettings } from './saml-settings';

/** node-saml never gets to keep request IDs in its own per-process memory: our store owns them. */
const NO_CACHE: CacheProvider = {
  saveAsync: async () => null,
  getAsync: async () => null,
  removeAsync: async () => null,
};

/** A cache that knows exactly one request: a response is accepted only in reply to it. */
export function onlyRequest(requestId: string): CacheProvider {
  return {
    saveAsync: async () => null,
    getAsync: async (key) => (key === requestId ? new Date().toISOString() : null),
    removeAsync: async () => null,
  };
}

/** Longest accepted time between the IdP issuing an assertion and our receiving it. */
const MAX_ASSERTION_AGE_MS = 5 * 60_000;

/** What one SAML exchange adds to the settings: the ID our store chose, the one request it answers. */
export interface SamlExchange {
  requestId?: string;
  cache?: CacheProvider;
  /**
   * An unsolicited response (IdP-initiated login, when the settings allow it): InResponseTo must
   * then be absent, as no request store entry can vouch for one.
   */
  unsolicited?: boolean;
}

/**
 * node-saml's options for the passport strategy, configured strictly (its defaults do not check
 * InResponseTo and allow no clock skew): both the response and the assertion signed by one of the
 * IdP certificates, audience our entity id, issuer the IdP's, SHA-256 for what we sign. Built per
 * exchange from the live settings: cheap, and it lets the AuthnRequest carry the ID our store chose.
 */
export function samlOptions(settings: SamlSettings, options: SamlExchange = {}): SamlConfig {
  const config: SamlConfig = {
    callbackUrl: settings.acsUrl,
    entryPoint: settings.idpSsoUrl,
    issuer: settings.spEntityId,
    audience: settings.spEntityId,
    idpCert: settings.idpCertificates,
    idpIssuer: settings.idpEntityId,
    validateInResponseTo: options.unsolicited === true ? ValidateInResponseTo.ifPresent : ValidateInResponseTo.always,
    acceptedClockSkewMs: settings.clockSkewMs,
    maxAssertionAgeMs: MAX_ASSERTION_AGE_MS,
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: true,
    signatureAlgorithm: 'sha256',
    digestAlgorithm: 'sha256',
    disableRequestedAuthnContext: true,
    cacheProvider: options.unsolicited === true ? NO_CACHE : (options.cache ?? NO_CACHE),
  };
  if (options.requestId !== undefined) {
    const id = options.requestId;
    config.generateUniqueId = () => id;
  }
  if (settings.spPrivateKey !== undefined) config.privateKey = settings.spPrivateKey;
  if (settings.idpSloUrl !== undefined) {
    config.logoutUrl = settings.idpSloUrl;
    // Published in the SP metadata as our SingleLogoutService (HTTP-Redirect).
    config.logoutCallbackUrl = singleLogoutUrl(settings);
  }
  return config;
}

/** Our single logout endpoint: beside the ACS URL (`.../api/auth/saml/callback` -> `.../logout`). */
export function singleLogoutUrl(settings: SamlSettings): string {
  return new URL('logout', settings.acsUrl).href;
}
