import { Injectable } from '@nestjs/common';
import { MultiSamlStrategy, type Profile, type VerifiedCallback } from '@node-saml/passport-saml';
import { samlOptions, type SamlExchange } from './saml-service-provider';
import type { SamlSettings } from './saml-settings';

/** What the strategy hands back for a verified response: only the XML whose signature was checked. */
export interface VerifiedSamlLogin {
  assertionXml: string;
}

/** The request type of passport-saml's own express typings (v4), not the app's. */
export type SamlHttpRequest = Parameters<MultiSamlStrategy['authenticate']>[0];

/** The settings and exchange of one SAML request, set by the caller just before the strategy runs. */
const exchanges = new WeakMap<object, { settings: SamlSettings; exchange: SamlExchange }>();

/**
 * The request the strategy reads: only the fields a step needs, never the raw client request, so
 * a Redirect-binding SAMLResponse in a query string can never reach the POST-only callback.
 */
export function samlRequest(
  settings: SamlSettings,
  fields: { body?: Record<string, string>; query?: Record<string, string>; url?: string; user?: Record<string, unknown> },
  exchange: SamlExchange = {},
): SamlHttpRequest {
  const req = { body: fields.body ?? {}, query: fields.query ?? {}, url: fields.url ?? '/', headers: {}, user: fields.user, logout: (done: (error?: Error) => void) => done() };
  exchanges.set(req, { settings, exchange });
  // A plain object standing for the request: the strategy reads only body, query, url and logout.
  return req as unknown as SamlHttpRequest;
}

/**
 * SAML 2.0 through passport (@node-saml/passport-saml, the architecture's choice). A
 * MultiSamlStrategy because its options are not fixed at boot: every request carries the live
 * settings (a change applies without a restart) and the ID of the one AuthnRequest it may answer.
 * The strategy checks signatures, audience, times and InResponseTo; SamlLoginService adds what it
 * leaves out (Recipient, Destination, Issuer, replay, DOCTYPE, size).
 */
@Injectable()
export class SamlStrategy extends MultiSamlStrategy {
  constructor() {
    super(
      {
        name: 'saml',
        passReqToCallback: true,
        getSamlOptions: (req, done) => {
          const found = exchanges.get(req);
          if (found === undefined) return done(new Error('SAML request without settings'));
          done(null, samlOptions(found.settings, found.exchange));
        },
      },
      (_req: SamlHttpRequest, profile: Profile | null, done: VerifiedCallback) => {
        const assertionXml = profile?.getAssertionXml?.();
        done(null, assertionXml === undefined ? undefined : { assertionXml });
      },
      // An IdP's LogoutRequest: the profile names who to sign out; the caller ends the sessions.
      (req: SamlHttpRequest, profile: Profile | null, done: VerifiedCallback) => {
        const user = profile === null ? undefined : { nameID: profile.nameID, sessionIndex: profile.sessionIndex ?? null, issuer: profile.issuer };
        (req as { user?: unknown }).user = user;
        done(null, user);
      },
    );
  }
}
