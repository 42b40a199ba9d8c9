import { createHmac, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { CONTROL_PLANE_CONFIG } from '../config/config.tokens';
import type { ControlPlaneConfig } from '../config/control-plane-config';

/**
 * CSRF tokens bound to the session: an HMAC of the session's token under the JWT secret. A token
 * planted by another site (cookie tossing) or left from an earlier session never matches, and the
 * server keeps no state for it.
 */
@Injectable()
export class CsrfTokens {
  constructor(@Inject(CONTROL_PLANE_CONFIG) private readonly config: ControlPlaneConfig) {}

  forSession(sessionToken: string): string {
    return createHmac('sha256', this.config.auth.jwtSecret).update(`csrf:${sessionToken}`).digest('base64url');
  }

  /** Constant-time comparison of what the client echoed with the session's token. */
  matches(sessionToken: string, presented: string | undefined): boolean {
    if (presented === undefined) return false;
    const expected = Buffer.from(this.forSession(sessionToken));
    const given = Buffer.from(presented);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}
