import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ok, type SuccessEnvelope } from '../common/envelope';
import { Ok } from '../openapi/openapi-schemas';
import { CurrentUser } from './auth.decorators';
import type { AuthenticatedUser } from './authenticated-user';

export interface SessionCheck {
  valid: true;
  user: { id: string; email: string; role: string };
  expiresAt: string;
}

/** Spec 4.4 / 2.7 session check: any valid token (the global guard already verified it). */
@ApiTags('auth')
@Controller('api/auth')
export class SessionController {
  @Get('session')
  @ApiOperation({ summary: 'Checks the presented token (any role)' })
  @Ok(200, {
    type: 'object',
    required: ['valid', 'user', 'expiresAt'],
    properties: {
      valid: { type: 'boolean', enum: [true] },
      user: { type: 'object', required: ['id', 'email', 'role'], properties: { id: { type: 'string' }, email: { type: 'string' }, role: { type: 'string', enum: ['admin', 'user'] } } },
      expiresAt: { type: 'string', format: 'date-time' },
    },
  })
  session(@CurrentUser() user: AuthenticatedUser): SuccessEnvelope<SessionCheck> {
    return ok({ valid: true, user: { id: user.id, email: user.email, role: user.role }, expiresAt: user.expiresAt.toISOString() });
  }
}
