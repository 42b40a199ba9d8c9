import { Inject, Injectable, Logger } from '@nestjs/common';
import type { RequestWithUser } from '@node-saml/passport-saml/lib/types';
import { AuditLogService } from '../audit/audit-log.service';
import type { AuthenticatedUser } from '../auth/authenticated-user';
import { DomainError } from '../common/domain-error';
import { ManagementSessions } from '../sessions/management-sessions.service';
import { runStrategy } from './passport-outcome';
import { checkRedirectMessage } from './saml-message-limits';
import { refusalReason } from './saml-refusal';
import { LOGOUT_REQUEST, SamlRequestStore } from './saml-request-store.service';
import { onlyRequest } from './saml-service-provider';
import { SAML_SETTINGS_SOURCE, type SamlSettings, type SamlSettingsSource } from './saml-settings';
import { samlRequest, SamlStrategy } from './saml.strategy';

const UNSPECIFIED_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified';

/**
 * SAML single logout (HTTP-Redirect binding, profiles 4.4). SP-initiated: a logout of an SSO
 * session answers the IdP address with a LogoutRequest (signed when an SP key is configured),
 * its ID stored like an AuthnRequest's. IdP-initiated: a signed LogoutRequest ends every session
 * of that subject and is answered with a LogoutResponse. node-saml accepts unsigned Redirect
 * messages; here a message without Signature is refused first.
 */
@Injectable()
export class SamlLogoutService {
  private readonly logger = new Logger('Saml');

  constructor(
    @Inject(SAML_SETTINGS_SOURCE) private readonly settingsSource: SamlSettingsSource,
    private readonly requests: SamlRequestStore,
    private readonly sessions: ManagementSessions,
    private readonly strategy: SamlStrategy,
    private readonly audit: AuditLogService,
  ) {}

  /** The IdP logout address for a session token's logout; undefined when SLO does not apply. */
  async sloUrlFor(user: AuthenticatedUser): Promise<{ sloUrl: string } | undefined> {
    if (user.sessionId === undefined) return undefined;
    const settings = await this.settingsSource.current().catch(() => undefined);
    if (settings?.idpSloUrl === undefined) return undefined;
    const subject = await this.sessions.idpSubject(user.sessionId);
    if (subject === undefined) return undefined;
    const opened = await this.requests.open(settings.defaultReturnUrl, LOGOUT_REQUEST);
    const nameUser = { nameID: subject.nameId, nameIDFormat: subject.nameIdFormat ?? UNSPECIFIED_FORMAT, ...(subject.sessionIndex === undefined ? {} : { sessionIndex: subject.sessionIndex }) };
    const req = samlRequest(settings, { body: { RelayState: opened.relayState }, user: nameUser }, { requestId: opened.requestId });
    const sloUrl = await new Promise<string>((resolve, reject) => this.strategy.logout(req as RequestWithUser, (error, url) => (error || !url ? reject(error ?? new Error('no logout URL')) : resolve(url))));
    return { sloUrl };
  }

  /** A message from the IdP at our SLO endpoint; answers where to send the browser. */
  async receive(query: Record<string, unknown>, url: string, ip: string | undefined): Promise<string> {
    const settings = await this.settingsSource.current();
    if (settings === undefined) throw new DomainError('SSO_NOT_CONFIGURED');
    const kind = typeof query['SAMLRequest'] === 'string' ? 'SAMLRequest' : typeof query['SAMLResponse'] === 'string' ? 'SAMLResponse' : undefined;
    if (kind === undefined) return this.refuse('no SAMLRequest or SAMLResponse', ip);
    const checked = checkRedirectMessage(query[kind]);
    if ('refused' in checked) return this.refuse(checked.refused, ip);
    if (typeof query['Signature'] !== 'string' || typeof query['SigAlg'] !== 'string') return this.refuse('logout message not signed', ip);
    const relayState = typeof query['RelayState'] === 'string' ? query['RelayState'] : undefined;
    const fields: Record<string, string> = { [kind]: query[kind] as string, Signature: query['Signature'], SigAlg: query['SigAlg'], ...(relayState === undefined ? {} : { RelayState: relayState }) };
    return kind === 'SAMLResponse' ? this.logoutResponse(settings, fields, url, ip) : this.logoutRequest(settings, fields, url, ip);
  }

  /** The IdP confirms our LogoutRequest: only in reply to a request of ours, once. */
  private async logoutResponse(settings: SamlSettings, query: Record<string, string>, url: string, ip: string | undefined): Promise<string> {
    const request = await this.requests.consume(query['RelayState']);
    if (request === undefined || request.browserBinding !== LOGOUT_REQUEST) return this.refuse('RelayState unknown, used or expired', ip);
    const outcome = await runStrategy(this.strategy, samlRequest(settings, { query, url }, { cache: onlyRequest(request.id) }), {});
    if (outcome.kind === 'error') return this.refuse(refusalReason(outcome.error), ip);
    await this.audit.record({ actor: 'anonymous', action: 'auth.saml.logout.confirmed', ip, details: {} });
    return request.returnUrl;
  }

  /** The IdP ends a subject's sessions (IdP-initiated, or another SP's logout at the IdP). */
  private async logoutRequest(settings: SamlSettings, query: Record<string, string>, url: string, ip: string | undefined): Promise<string> {
    const req = samlRequest(settings, { query, url });
    const outcome = await runStrategy(this.strategy, req, {});
    if (outcome.kind === 'error') return this.refuse(refusalReason(outcome.error), ip);
    const subject = (req as { user?: { nameID?: unknown; sessionIndex?: unknown; issuer?: unknown } }).user;
    if (outcome.kind !== 'redirect' || typeof subject?.nameID !== 'string') return this.refuse('logout request names no subject', ip);
    if (subject.issuer !== settings.idpEntityId) return this.refuse('wrong Issuer', ip);
    const sessionIndex = typeof subject.sessionIndex === 'string' && subject.sessionIndex !== '' ? subject.sessionIndex : undefined;
    const ended = await this.sessions.revokeForIdpSubject(subject.nameID, sessionIndex);
    await this.audit.record({ actor: subject.nameID, action: 'auth.saml.logout', ip, details: { sessions: ended.revoked } });
    this.logger.log(`IdP single logout ended ${ended.revoked} session(s) from ${ip ?? 'unknown address'}`);
    return outcome.url;
  }

  private async refuse(reason: string, ip: string | undefined): Promise<never> {
    await this.audit.record({ actor: 'anonymous', action: 'auth.saml.logout.refused', ip, details: { reason } });
    this.logger.warn(`SAML logout message refused (${reason}) from ${ip ?? 'unknown address'}`);
    throw new DomainError('SAML_REJECTED');
  }
}
