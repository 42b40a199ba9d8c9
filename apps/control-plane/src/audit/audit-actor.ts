import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { AuthenticatedUser } from '../auth/authenticated-user';

/** Who asks for a change and from where: what the audit log records (spec 6.4). */
export interface AuditActor {
  /** The user's id (`anonymous` only where no guard ran). */
  id: string;
  email: string;
  ip?: string;
}

/** The authenticated caller of a management request, as an audit actor. */
export const Actor = createParamDecorator((_data: unknown, ctx: ExecutionContext): AuditActor => {
  const req = ctx.switchToHttp().getRequest<Request & { user?: AuthenticatedUser }>();
  return { id: req.user?.id ?? 'anonymous', email: req.user?.email ?? 'anonymous', ip: req.ip ?? req.socket.remoteAddress };
});
