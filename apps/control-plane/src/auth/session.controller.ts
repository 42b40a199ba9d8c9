import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ok, type SuccessEnvelope } from '../common/envelope';
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
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Checks the presented token' })
  @ApiResponse({
    status: 200,
    schema: {
      properties: {
        success: { type: 'boolean', example: true },
        data: {
          properties: {
            valid: { type: 'boolean', example: true },
            user: { properties: { id: { type: 'string' }, email: { type: 'string' }, role: { type: 'string', enum: ['admin', 'user'] } } },
            expiresAt: { type: 'string', format: 'date-time' },
          },
        },
      },
    },
  })
  @ApiResponse({ status: 401, description: 'Unauthorized (missing, invalid, expired or revoked token)' })
  session(@CurrentUser() user: AuthenticatedUser): SuccessEnvelope<SessionCheck> {
    return ok({ valid: true, user: { id: user.id, email: user.email, role: user.role }, expiresAt: user.expiresAt.toISOString() });
  }
}
