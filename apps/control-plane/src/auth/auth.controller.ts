import { Body, Controller, HttpCode, Ip, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { DomainError } from '../common/domain-error';
import { ok, type SuccessEnvelope } from '../common/envelope';
import { Fails, Ok } from '../openapi/openapi-schemas';
import { CurrentUser, Public } from './auth.decorators';
import type { AuthenticatedUser } from './authenticated-user';
import { LoginDto } from './login.dto';
import { LoginService, type LoginResult } from './login.service';
import { LogoutService } from './logout.service';

const NOT_IMPLEMENTED = Fails(501, 'NOT_IMPLEMENTED: answered until the feature exists');

@ApiTags('auth')
@Controller('api/auth')
export class AuthController {
  constructor(
    private readonly logins: LoginService,
    private readonly logouts: LogoutService,
  ) {}

  @Public()
  @Post('login')
  @HttpCode(200)
  @ApiOperation({ summary: 'Password login (decision 20): {email, password} or {username, password}' })
  @Ok(200, {
    type: 'object',
    required: ['token', 'expiresIn'],
    properties: { token: { type: 'string', description: 'HS256 JWT: send as Authorization: Bearer <token>' }, expiresIn: { type: 'integer', example: 86400, description: 'Seconds' } },
  })
  @Fails(400, 'VALIDATION_ERROR: a missing or unknown field (details.fields)')
  @Fails(401, 'INVALID_CREDENTIALS: the same answer for an unknown email and a wrong password')
  @Fails(429, 'RATE_LIMITED (credentials tier: 5 per 15 minutes per client)')
  async login(@Body() body: LoginDto, @Ip() ip: string): Promise<SuccessEnvelope<LoginResult>> {
    return ok(await this.logins.login(body.email ?? body.username ?? '', body.password, ip));
  }

  @Post('logout')
  @HttpCode(200)
  @ApiOperation({ summary: 'Revokes the presented token until it expires' })
  @Ok(200, { type: 'object', required: ['loggedOut'], properties: { loggedOut: { type: 'boolean', enum: [true] } } })
  async logout(@CurrentUser() user: AuthenticatedUser, @Ip() ip: string): Promise<SuccessEnvelope<{ loggedOut: true }>> {
    await this.logouts.logout(user, ip);
    return ok({ loggedOut: true });
  }

  /** Spec 4.4 lists self-registration as in progress; it answers 501 until it exists. */
  @Public()
  @Post('register')
  @ApiOperation({ summary: 'Not implemented: admins create users with POST /api/users' })
  @NOT_IMPLEMENTED
  register(): never {
    throw new DomainError('NOT_IMPLEMENTED', 'Registration is not implemented; an admin creates users with POST /api/users');
  }
}
