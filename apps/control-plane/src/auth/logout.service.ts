import { Injectable, Logger } from '@nestjs/common';
import { AuditLogService } from '../audit/audit-log.service';
import { ManagementSessions } from '../sessions/management-sessions.service';
import type { AuthenticatedUser } from './authenticated-user';
import { LogoutExtensions } from './logout-extensions';
import { TokenRevocationService } from './token-revocation.service';

/**
 * `POST /api/auth/logout`: the presented token is refused from now until it expires, and its
 * session (SSO) is revoked; an extension (SAML single logout) may add where the browser goes next.
 */
@Injectable()
export class LogoutService {
  private readonly logger = new Logger('Auth');

  constructor(
    private readonly revocations: TokenRevocationService,
    private readonly audit: AuditLogService,
    private readonly sessions: ManagementSessions,
    private readonly extensions: LogoutExtensions,
  ) {}

  async logout(user: AuthenticatedUser, ip: string | undefined): Promise<{ sloUrl?: string }> {
    // Before the session ends: single logout reads the IdP subject it belongs to.
    const next = await this.extensions.after(user);
    await this.revocations.revoke(user.jti, user.expiresAt);
    if (user.sessionId !== undefined) await this.sessions.revoke(user.sessionId);
    await this.audit.record({ actor: user.email, action: 'auth.logout', target: user.id, ip, details: { jti: user.jti, ...(user.sessionId === undefined ? {} : { sessionId: user.sessionId }), ...(next.sloUrl === undefined ? {} : { singleLogout: true }) } });
    this.logger.log(`logout of ${user.email} from ${ip ?? 'unknown address'}`);
    return next;
  }
}
