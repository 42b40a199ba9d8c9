import { Controller, Get } from '@nestjs/common';
import { ok, type SuccessEnvelope } from '../common/envelope';
import { CurrentUser } from './auth.decorators';
import type { AuthenticatedUser } from './authenticated-user';

export interface SessionCheck {
  valid: true;
  user: { id: string; email: string; role: string };
  expiresAt: string;
}

/** Spec 4.4 / 2.7 session check: any valid token (the global guard already verified it). */
@Controller('api/auth')
export class SessionController {
  @Get('session')
  session(@CurrentUser() user: AuthenticatedUser): SuccessEnvelope<SessionCheck> {
    return ok({ valid: true, user: { id: user.id, email: user.email, role: user.role }, expiresAt: user.expiresAt.toISOString() });
  }
}
