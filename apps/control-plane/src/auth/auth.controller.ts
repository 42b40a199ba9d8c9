import { Body, Controller, HttpCode, Ip, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { DomainError } from '../common/domain-error';
import { ok, type SuccessEnvelope } from '../common/envelope';
import { CurrentUser, Public } from './auth.decorators';
import type { AuthenticatedUser } from './authenticated-user';
import { LoginDto } from './login.dto';
import { LoginService, type LoginResult } from './login.service';
import { LogoutService } from './logout.service';

const envelope = (data: Record<string, unknown>): Record<string, unknown> => ({
  properties: { success: { type: 'boolean', example: true }, data: { type: 'object', properties: data } },
});

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
  @ApiResponse({ status: 200, schema: envelope({ token: { type: 'string' }, expiresIn: { type: 'integer', example: 86400 } }) })
  @ApiResponse({ status: 401, description: 'INVALID_CREDENTIALS: the same answer for an unknown email and a wrong password' })
  @ApiResponse({ status: 429, description: 'RATE_LIMITED (credentials tier: 5 per 15 minutes per client)' })
  async login(@Body() body: LoginDto, @Ip() ip: string): Promise<SuccessEnvelope<LoginResult>> {
    return ok(await this.logins.login(body.email ?? body.username ?? '', body.password, ip));
  }

  @Post('logout')
  @HttpCode(200)
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Revokes the presented token until it expires' })
  @ApiResponse({ status: 200, schema: envelope({ loggedOut: { type: 'boolean', example: true } }) })
  @ApiResponse({ status: 401, description: 'Unauthorized' })
  async logout(@CurrentUser() user: AuthenticatedUser, @Ip() ip: string): Promise<SuccessEnvelope<{ loggedOut: true }>> {
    await this.logouts.logout(user, ip);
    return ok({ loggedOut: true });
  }

  /** Spec 4.4 lists self-registration as in progress; it answers 501 until it exists. */
  @Public()
  @Post('register')
  @ApiOperation({ summary: 'Not implemented: admins create users with POST /api/users' })
  @ApiResponse({ status: 501, description: 'NOT_IMPLEMENTED' })
  register(): never {
    throw new DomainError('NOT_IMPLEMENTED', 'Registration is not implemented; an admin creates users with POST /api/users');
  }

  /** SAML SSO (spec 5.3) needs the external session service; until then 501, in the credentials tier. */
  @Public()
  @Post(['saml/initiate', 'saml/callback'])
  @ApiOperation({ summary: 'Not implemented yet: SAML 2.0 SSO' })
  @ApiResponse({ status: 501, description: 'NOT_IMPLEMENTED' })
  saml(): never {
    throw new DomainError('NOT_IMPLEMENTED', 'SAML single sign-on is not implemented');
  }
}
