import { createParamDecorator, SetMetadata, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { UserRole } from '../users/user.entity';
import type { AuthenticatedUser } from './authenticated-user';

export const IS_PUBLIC = 'auth:isPublic';
export const REQUIRED_ROLES = 'auth:roles';

/** Opts an endpoint out of the global authentication guard (login, ops endpoints). */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC, true);

/** The endpoint (or controller) requires one of these roles; 403 "Forbidden" otherwise. */
export const Roles = (...roles: UserRole[]): MethodDecorator & ClassDecorator => SetMetadata(REQUIRED_ROLES, roles);

/** The verified principal of the request (only on authenticated endpoints). */
export const CurrentUser = createParamDecorator((_data: unknown, ctx: ExecutionContext): AuthenticatedUser => {
  return ctx.switchToHttp().getRequest<Request & { user: AuthenticatedUser }>().user;
});
