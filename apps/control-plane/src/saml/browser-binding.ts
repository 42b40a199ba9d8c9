import { randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import { sha256 } from './saml-login-codes.service';

export const BROWSER_COOKIE = 'gateway_saml_browser';
const PATH = '/api/auth/saml';

/** The cookie set at initiate that a one-time code is bound to; answers its hash for the request row. */
export function bindBrowser(req: Request, res: Response): string {
  const value = randomBytes(32).toString('base64url');
  // Lax: sent on the UI's same-site exchange call, never on another site's requests.
  res.append('Set-Cookie', `${BROWSER_COOKIE}=${value}; Path=${PATH}; Max-Age=600; HttpOnly; SameSite=Lax${req.secure ? '; Secure' : ''}`);
  return sha256(value);
}

export function browserCookie(req: Request): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === BROWSER_COOKIE) return value.join('=');
  }
  return undefined;
}
