import { Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { CsrfTokens } from './csrf-tokens.service';
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
  constructor(private readonly csrf: CsrfTokens) {}

  start(res: Response, token: string, expiresIn: number, secure: boolean): CookieSessionStarted {
    res.append('Set-Cookie', [
      setCookieValue(SESSION_COOKIE, token, { maxAgeSeconds: expiresIn, httpOnly: true, secure }),
      setCookieValue(CSRF_COOKIE, this.csrf.forSession(token), { maxAgeSeconds: expiresIn, httpOnly: false, secure }),
    ]);
    return { session: 'cookie', expiresIn };
  }

  end(res: Response, secure: boolean): void {
    res.append('Set-Cookie', [
      setCookieValue(SESSION_COOKIE, '', { maxAgeSeconds: 0, httpOnly: true, secure }),
      setCookieValue(CSRF_COOKIE, '', { maxAgeSeconds: 0, httpOnly: false, secure }),
    ]);
  }
}
