import { applyDecorators, createParamDecorator, SetMetadata, type ExecutionContext } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import type { Request } from 'express';
import type { UserRole } from '../users/user.entity';
import type { AuthenticatedUser } from './authenticated-user';

export const IS_PUBLIC = 'auth:isPublic';
export const REQUIRED_ROLES = 'auth:roles';

/**
 * The same facts for the OpenAPI document: openapi.ts turns them into each operation's security
 * requirement and its 401/403 responses, so the document cannot disagree with the guards.
 */
export const OPENAPI_PUBLIC = 'x-gateway-public';
export const OPENAPI_ROLES = 'x-gateway-roles';

/** Opts an endpoint out of the global authentication guard (login, ops endpoints). */
export const Public = (): MethodDecorator & ClassDecorator => applyDecorators(SetMetadata(IS_PUBLIC, true), ApiExtension(OPENAPI_PUBLIC, true));

/** The endpoint (or controller) requires one of these roles; 403 "Forbidden" otherwise. */
export const Roles = (...roles: UserRole[]): MethodDecorator & ClassDecorator => applyDecorators(SetMetadata(REQUIRED_ROLES, roles), ApiExtension(OPENAPI_ROLES, roles));

/** The verified principal of the request (only on authenticated endpoints). */
export const CurrentUser = createParamDecorator((_data: unknown, ctx: ExecutionContext): AuthenticatedUser => {
  return ctx.switchToHttp().getRequest<Request & { user: AuthenticatedUser }>().user;
});
