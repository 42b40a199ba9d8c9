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
}
