import { Inject, Injectable, Logger } from '@nestjs/common';
import { AuditLogService } from '../audit/audit-log.service';
import { DomainError } from '../common/domain-error';
import { TokenIssuer } from '../auth/token-issuer.service';
import { UserAccountsService, type UserAccount } from '../users/user-accounts.service';
import type { UserRole } from '../users/user.entity';
import { decodeSamlResponse } from './saml-message-limits';
import { refusalReason } from './saml-refusal';
import { SamlAssertionLedger } from './saml-assertion-ledger.service';
import { LOGOUT_REQUEST, SamlRequestStore } from './saml-request-store.service';
import { runStrategy } from './passport-outcome';
import { onlyRequest, type SamlExchange } from './saml-service-provider';
import { SAML_SETTINGS_SOURCE, type SamlSettings, type SamlSettingsSource } from './saml-settings';
import { validateReturnUrl } from './saml-return-url';
import { checkResponseEnvelope, isUnsolicited, readSignedAssertion, type SignedAssertion } from './signed-assertion';
import { SsoUserProvisioner } from './sso-user-provisioner.service';
import type { IdpSession } from './saml-login-codes.service';
import { ManagementSessions } from '../sessions/management-sessions.service';
import { samlRequest, SamlStrategy } from './saml.strategy';

/** Spec 2.7's SAML result. */
export interface SamlResult {
  token: string;
  user: { id: string; email: string; name: string; role: UserRole };
  sessionId: string;
  expiresAt: string;
}

/** A verified SSO login, before a token is issued (browsers get a one-time code instead). */
export interface AcceptedLogin {
  account: UserAccount;
  name: string;
  returnUrl: string;
  idp: IdpSession;
  /** The cookie hash of the browser that started the login; undefined for an IdP-initiated one. */
  browserBinding?: string;
}

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;

/** An IdP-initiated login's RelayState, when it is an acceptable return URL; otherwise the default. */
function idpInitiatedReturnUrl(relayState: unknown, settings: SamlSettings): string {
  try {
    return validateReturnUrl(typeof relayState === 'string' && relayState !== '' ? relayState : settings.defaultReturnUrl, settings.allowedReturnUrls);
  } catch {
    return validateReturnUrl(settings.defaultReturnUrl, settings.allowedReturnUrls);
  }
}

/**
 * SAML 2.0 SSO for management users: starts logins and accepts the IdP's responses. node-saml
 * verifies signatures, audience and times; what it leaves out (bound InResponseTo, Recipient,
 * Destination, Issuer, status, replay, DOCTYPE and size) is checked here, failing closed.
 */
@Injectable()
export class SamlLoginService {
  private readonly logger = new Logger('Saml');

  constructor(
    @Inject(SAML_SETTINGS_SOURCE) private readonly settingsSource: SamlSettingsSource,
    private readonly requests: SamlRequestStore,
    private readonly ledger: SamlAssertionLedger,
    private readonly provisioner: SsoUserProvisioner,
    private readonly accounts: UserAccountsService,
    private readonly tokens: TokenIssuer,
    private readonly audit: AuditLogService,
    private readonly strategy: SamlStrategy,
    private readonly sessions: ManagementSessions,
  ) {}

  async settings(): Promise<SamlSettings> {
    const settings = await this.settingsSource.current();
    if (settings === undefined) throw new DomainError('SSO_NOT_CONFIGURED');
    return settings;
  }

  /** Whether SSO can be offered now: on and complete (an incomplete configuration is off, not an error here). */
  async ssoAvailable(): Promise<boolean> {
    try {
      return (await this.settingsSource.current()) !== undefined;
    } catch (error) {
      if (error instanceof DomainError) return false;
      throw error;
    }
  }

  /** The IdP address for a new login; the return URL is checked before the IdP is involved. */
  async initiate(returnUrl: unknown, browserBinding: string): Promise<string> {
    const settings = await this.settings();
    const target = validateReturnUrl(returnUrl ?? settings.defaultReturnUrl, settings.allowedReturnUrls);
    const opened = await this.requests.open(target, browserBinding);
    // No SAMLResponse in the request: the strategy answers with a redirect to the IdP (HTTP-Redirect binding).
    const outcome = await runStrategy(this.strategy, samlRequest(settings, { body: { RelayState: opened.relayState } }, { requestId: opened.requestId }), {});
    if (outcome.kind !== 'redirect') throw outcome.kind === 'error' ? outcome.error : new Error(`SAML strategy answered ${outcome.kind} to a login request`);
    return outcome.url;
  }

  async metadata(): Promise<string> {
    const settings = await this.settings();
    const xml = await new Promise<string>((resolve, reject) =>
      this.strategy.generateServiceProviderMetadata(samlRequest(settings, {}), null, settings.spCertificate ?? null, (error, made) => (error || made === undefined ? reject(error ?? new Error('no metadata')) : resolve(made))),
    );
    // node-saml always writes HTTP-POST for the SingleLogoutService; ours is the HTTP-Redirect binding.
    return xml.replace(/(<SingleLogoutService Binding=")urn:oasis:names:tc:SAML:2\.0:bindings:HTTP-POST"/, '$1urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect"');
  }

  /** Verifies a posted response; 401 SAML_REJECTED, audited with the reason, for anything wrong. */
  async accept(body: { SAMLResponse?: unknown; RelayState?: unknown }, ip: string | undefined): Promise<AcceptedLogin> {
    const settings = await this.settings();
    const decoded = decodeSamlResponse(body.SAMLResponse);
    if ('refused' in decoded) return this.refuse(decoded.refused, ip);
    const origin = await this.origin(body.RelayState, decoded.xml, settings);
    if ('refused' in origin) return this.refuse(origin.refused, ip);
    // The strategy sees the checked XML, re-encoded: what it verifies is exactly what the checks below read.
    const form = samlRequest(settings, { body: { SAMLResponse: Buffer.from(decoded.xml).toString('base64') } }, origin.exchange);
    const outcome = await runStrategy(this.strategy, form, {});
    if (outcome.kind === 'error') return this.refuse(refusalReason(outcome.error), ip);
    if (outcome.kind !== 'success') return this.refuse('response carries no login', ip);
    const assertionXml = String(outcome.user['assertionXml']);
    const envelopeRefusal = checkResponseEnvelope(decoded.xml, settings);
    if (envelopeRefusal !== undefined) return this.refuse(envelopeRefusal, ip);
    const assertion = readSignedAssertion(assertionXml, settings);
    if ('refused' in assertion) return this.refuse(assertion.refused, ip);
    const skewedUntil = new Date(Math.max(assertion.notOnOrAfter?.getTime() ?? Date.now() + 5 * 60_000, Date.now()) + settings.clockSkewMs);
    if (!(await this.ledger.firstUse(assertion.issuer, assertion.id, skewedUntil))) return this.refuse('assertion replayed', ip);
    const login = this.identity(assertion, settings);
    if ('refused' in login) return this.refuse(login.refused, ip);
    const provisioned = await this.provisioner.provision(login.email, login.role);
    // A disabled user signs in neither by password nor by SSO (issue 14).
    if ((await this.accounts.tokenStanding(provisioned.account.id))?.disabled !== false) return this.refuse('user disabled', ip);
    await this.audit.record({
      actor: provisioned.account.email,
      action: 'auth.saml.login',
      target: provisioned.account.id,
      ip,
      details: { created: provisioned.created, role: login.role, ...(provisioned.previousRole !== undefined && provisioned.previousRole !== login.role ? { previousRole: provisioned.previousRole } : {}) },
    });
    this.logger.log(`SSO login of ${provisioned.account.email} (${login.role}) from ${ip ?? 'unknown address'}`);
    const idp: IdpSession = { nameId: assertion.nameId.slice(0, 1024), ...(assertion.nameIdFormat === undefined ? {} : { nameIdFormat: assertion.nameIdFormat }), ...(assertion.sessionIndex === undefined ? {} : { sessionIndex: assertion.sessionIndex }) };
    return { account: provisioned.account, name: login.name, returnUrl: origin.returnUrl, idp, ...(origin.browserBinding === undefined ? {} : { browserBinding: origin.browserBinding }) };
  }

  /**
   * Which login a response answers. The RelayState names a request of ours: only that request's ID
   * is a valid InResponseTo, once. Otherwise, only when allowIdpInitiated is on, an unsolicited
   * response (no InResponseTo at all) starts a login of its own; its RelayState may name a
   * return URL, checked like initiate's.
   */
  private async origin(relayState: unknown, xml: string, settings: SamlSettings): Promise<{ exchange: SamlExchange; returnUrl: string; browserBinding?: string } | { refused: string }> {
    const request = await this.requests.consume(relayState);
    // A logout request's row answers only a LogoutResponse, never a login.
    if (request !== undefined && request.browserBinding === LOGOUT_REQUEST) return { refused: 'RelayState unknown, used or expired' };
    if (request !== undefined) return { exchange: { cache: onlyRequest(request.id) }, returnUrl: request.returnUrl, browserBinding: request.browserBinding };
    if (!isUnsolicited(xml)) return { refused: 'RelayState unknown, used or expired' };
    if (!settings.allowIdpInitiated) return { refused: 'unsolicited response (IdP-initiated login is off)' };
    return { exchange: { unsolicited: true }, returnUrl: idpInitiatedReturnUrl(relayState, settings) };
  }

  /**
   * Starts the management session of a verified login (decision 23: through the session service
   * when one is configured) and issues its token, with the user's current token generation;
   * undefined when the user was disabled or deleted meanwhile.
   */
  async result(account: UserAccount, name: string, idp: IdpSession): Promise<SamlResult | undefined> {
    const standing = await this.accounts.tokenStanding(account.id);
    if (standing === undefined || standing.disabled) return undefined;
    const session = await this.sessions.create({
      userId: account.id,
      email: account.email,
      role: account.role,
      expiresAt: new Date(Date.now() + this.tokens.lifetimeSeconds() * 1000),
      ...(idp.nameId === '' ? {} : { nameId: idp.nameId }),
      ...(idp.nameIdFormat === undefined ? {} : { nameIdFormat: idp.nameIdFormat }),
      ...(idp.sessionIndex === undefined ? {} : { sessionIndex: idp.sessionIndex }),
    });
    const issued = this.tokens.issue(account, standing.tokenGeneration, { id: session.sessionId, expiresAt: session.expiresAt });
    return {
      token: issued.token,
      user: { id: account.id, email: account.email, name, role: account.role },
      sessionId: session.sessionId,
      expiresAt: issued.expiresAt.toISOString(),
    };
  }

  /** The result for an exchanged one-time code: the account as it is now. */
  async resultFor(userId: string, name: string, idp: IdpSession): Promise<SamlResult | undefined> {
    const account = await this.accounts.findById(userId);
    return account === undefined ? undefined : this.result(account, name, idp);
  }

  private identity(assertion: SignedAssertion, settings: SamlSettings): { email: string; name: string; role: UserRole } | { refused: string } {
    const email = settings.emailAttribute === undefined ? assertion.nameId : assertion.attributes.get(settings.emailAttribute)?.[0];
    if (email === undefined || !EMAIL.test(email)) return { refused: 'no usable email in the assertion' };
    const name = (settings.nameAttribute === undefined ? undefined : assertion.attributes.get(settings.nameAttribute)?.[0]) || email;
    const groups = settings.groupsAttribute === undefined ? [] : (assertion.attributes.get(settings.groupsAttribute) ?? []);
    const role: UserRole = groups.some((group) => settings.adminGroups.includes(group)) ? 'admin' : 'user';
    return { email, name, role };
  }

  private async refuse(reason: string, ip: string | undefined): Promise<never> {
    await this.audit.record({ actor: 'anonymous', action: 'auth.saml.refused', ip, details: { reason } });
    this.logger.warn(`SAML response refused (${reason}) from ${ip ?? 'unknown address'}`);
    throw new DomainError('SAML_REJECTED');
  }
}
