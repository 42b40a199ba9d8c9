import { createSecretKey } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { ExtractJwt, Strategy } from 'passport-jwt';
import { CONTROL_PLANE_CONFIG } from '../config/config.tokens';
import type { ControlPlaneConfig } from '../config/control-plane-config';
import { ManagementSessions } from '../sessions/management-sessions.service';
import { UserAccountsService } from '../users/user-accounts.service';
import { USER_ROLES } from '../users/user.entity';
import type { AuthenticatedUser, ManagementTokenClaims } from './authenticated-user';
import { sessionCookieToken } from './session-cookie';
import { TokenRevocationService } from './token-revocation.service';

/**
 * Management tokens, as Bearer or in the session cookie: HS256 only, our issuer, not expired, not
 * revoked (decision 20): neither the token's jti (logout) nor its subject (a deleted user) is on
 * the revocation list, and the user is not disabled and still has the token generation the token
 * was issued under; a session token's session (decision 23) is still valid.
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor(
    @Inject(CONTROL_PLANE_CONFIG) config: ControlPlaneConfig,
    private readonly revocations: TokenRevocationService,
    private readonly accounts: UserAccountsService,
    private readonly sessions: ManagementSessions,
  ) {
    super({
      // Bearer first; without an Authorization header, the browser session's HttpOnly cookie
      // (docs/admin-ui.md). Either token goes through the same checks below.
      jwtFromRequest: ExtractJwt.fromExtractors([ExtractJwt.fromAuthHeaderAsBearerToken(), (req) => sessionCookieToken(req.headers) ?? null]),
      // A KeyObject, not the string: given a string, jsonwebtoken first tries (and fails) to parse it
      // as a public key on every request, a quarter of the API's CPU under load. It accepts key
      // objects; passport-jwt's types only lag behind.
      secretOrKey: createSecretKey(Buffer.from(config.auth.jwtSecret)) as unknown as Buffer,
      algorithms: ['HS256'],
      issuer: config.auth.issuer,
      ignoreExpiration: false,
    });
  }

  /** Returning false makes passport answer 401. */
  async validate(claims: Partial<ManagementTokenClaims>): Promise<AuthenticatedUser | false> {
    const { sub, email, role, jti, exp, gen = 0, sid } = claims;
    if (typeof sub !== 'string' || typeof email !== 'string' || typeof jti !== 'string' || typeof exp !== 'number' || typeof gen !== 'number') return false;
    if (sid !== undefined && typeof sid !== 'string') return false;
    if (!(USER_ROLES as readonly unknown[]).includes(role)) return false;
    const [revoked, standing] = await Promise.all([this.revocations.isRevoked(jti, sub), this.accounts.tokenStanding(sub)]);
    // No row: a deleted user, already refused by the subject revocation delete writes.
    if (revoked || (standing !== undefined && (standing.disabled || standing.tokenGeneration !== gen))) return false;
    // A session token lives as long as its session: revoked or expired there, refused here. A
    // session service that cannot answer throws AUTH_SERVICE_UNAVAILABLE (503), never a 401.
    if (sid !== undefined && !(await this.sessions.isValid(sid))) return false;
    return { id: sub, email, role: role as AuthenticatedUser['role'], jti, expiresAt: new Date(exp * 1000), ...(sid === undefined ? {} : { sessionId: sid }) };
  }
}
