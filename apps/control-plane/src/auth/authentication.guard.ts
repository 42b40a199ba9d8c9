import { Injectable, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { DomainError } from '../common/domain-error';
import { IS_PUBLIC } from './auth.decorators';
import type { AuthenticatedUser } from './authenticated-user';

/** Global guard, deny by default: every endpoint needs a valid token unless marked @Public(). */
@Injectable()
export class AuthenticationGuard extends AuthGuard('jwt') {
  constructor(private readonly reflector: Reflector) {
    super();
  }

  override canActivate(context: ExecutionContext): ReturnType<ReturnType<typeof AuthGuard>['prototype']['canActivate']> {
    const isPublic = this.reflector.getAllAndOverride<boolean | undefined>(IS_PUBLIC, [context.getHandler(), context.getClass()]);
    if (isPublic === true) return true;
    return super.canActivate(context);
  }

  /** Missing, malformed, expired, foreign or revoked token: always the same 401 (spec 7.2). */
  override handleRequest<TUser = AuthenticatedUser>(err: unknown, user: TUser | false | null | undefined): TUser {
    if (err instanceof DomainError) throw err;
    if (err !== null && err !== undefined) throw new DomainError('UNAUTHORIZED');
    if (user === false || user === null || user === undefined) throw new DomainError('UNAUTHORIZED');
    return user;
  }
}
