import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { AuthenticatedUser } from '../auth/authenticated-user';

/** Who asks for a change and from where: what the audit log records (spec 6.4). */
export interface RouteActor {
  email: string;
  ip?: string;
}

export const Actor = createParamDecorator((_data: unknown, ctx: ExecutionContext): RouteActor => {
  const req = ctx.switchToHttp().getRequest<Request & { user?: AuthenticatedUser }>();
  return { email: req.user?.email ?? 'anonymous', ip: req.ip ?? req.socket.remoteAddress };
});
