import type { UserRole } from '../users/user.entity';

/** The principal a verified management token stands for (request.user). */
export interface AuthenticatedUser {
  id: string;
  email: string;
  role: UserRole;
  /** The token's id, for logout (revocation). */
  jti: string;
  /** When the token expires. */
  expiresAt: Date;
  /** The management session the token belongs to (SSO logins, decision 23); checked on every request. */
  sessionId?: string;
}

/** Decision 20: the claims of a management token. */
export interface ManagementTokenClaims {
  sub: string;
  email: string;
  role: UserRole;
  iat: number;
  exp: number;
  iss: string;
  jti: string;
  /** The user's token generation at issue (absent from tokens issued before issue 14: generation 0). */
  gen?: number;
  /** The management session (decision 23): the token is refused once it is revoked or expired. */
  sid?: string;
}
