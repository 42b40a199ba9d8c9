import type { IncomingMessage } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { CONTROL_PLANE_CONFIG } from '../config/config.tokens';
import type { ControlPlaneConfig } from '../config/control-plane-config';
import { CsrfTokens } from './csrf-tokens.service';
import { compileHttpsCheck } from './https-request';
import { CSRF_COOKIE, SESSION_COOKIE, setCookieValue } from './session-cookie';

/** What `POST /api/auth/login` with `session: "cookie"` answers: no token, the page never sees it. */
export interface CookieSessionStarted {
  session: 'cookie';
  expiresIn: number;
}

/**
 * The browser session (docs/admin-ui.md): the management token in an HttpOnly, SameSite=Strict
 * cookie (Secure over HTTPS), beside a readable CSRF cookie; logout expires both.
 */
@Injectable()
export class CookieSessions {
  private readonly isHttps: (req: IncomingMessage) => boolean;

  constructor(
    private readonly csrf: CsrfTokens,
    @Inject(CONTROL_PLANE_CONFIG) config: ControlPlaneConfig,
  ) {
    this.isHttps = compileHttpsCheck(config.trustedProxies);
  }

  start(req: IncomingMessage, res: Response, token: string, expiresIn: number): CookieSessionStarted {
    const secure = this.isHttps(req);
    res.append('Set-Cookie', [
      setCookieValue(SESSION_COOKIE, token, { maxAgeSeconds: expiresIn, httpOnly: true, secure }),
      setCookieValue(CSRF_COOKIE, this.csrf.forSession(token), { maxAgeSeconds: expiresIn, httpOnly: false, secure }),
    ]);
    return { session: 'cookie', expiresIn };
  }

  end(req: IncomingMessage, res: Response): void {
    const secure = this.isHttps(req);
    res.append('Set-Cookie', [
      setCookieValue(SESSION_COOKIE, '', { maxAgeSeconds: 0, httpOnly: true, secure }),
      setCookieValue(CSRF_COOKIE, '', { maxAgeSeconds: 0, httpOnly: false, secure }),
    ]);
  }
}
