import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { DomainError } from '../common/domain-error';
import type { UserRole } from '../users/user.entity';
import { REQUIRED_ROLES } from './auth.decorators';
import type { AuthenticatedUser } from './authenticated-user';

/** Runs after AuthenticationGuard: an authenticated user without a required role gets 403. */
@Injectable()
export class RolesGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const roles = this.reflector.getAllAndOverride<UserRole[] | undefined>(REQUIRED_ROLES, [context.getHandler(), context.getClass()]);
    if (roles === undefined || roles.length === 0) return true;
    const user = context.switchToHttp().getRequest<Request & { user?: AuthenticatedUser }>().user;
    if (user === undefined) throw new DomainError('UNAUTHORIZED');
    if (!roles.includes(user.role)) throw new DomainError('FORBIDDEN');
    return true;
  }
}
