import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { DomainError } from '../common/domain-error';
import { CsrfTokens } from './csrf-tokens.service';
import { CSRF_HEADER, UNSAFE_METHODS, sessionCookieToken } from './session-cookie';

/**
 * Runs after AuthenticationGuard: a request authenticated by the session cookie that changes state
 * must echo the CSRF token in X-CSRF-Token, or it gets 403 CSRF_TOKEN_INVALID. Bearer and public
 * requests pass: a cross-site page cannot make a browser send an Authorization header.
 */
@Injectable()
export class CsrfGuard implements CanActivate {
  constructor(private readonly csrf: CsrfTokens) {}

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<Request & { user?: unknown }>();
    if (!UNSAFE_METHODS.has(request.method) || request.user === undefined) return true;
    const sessionToken = sessionCookieToken(request.headers);
    if (sessionToken === undefined) return true;
    const presented = request.headers[CSRF_HEADER];
    if (!this.csrf.matches(sessionToken, typeof presented === 'string' ? presented : undefined)) throw new DomainError('CSRF_TOKEN_INVALID');
    return true;
  }
}
