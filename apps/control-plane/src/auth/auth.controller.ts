import { Body, Controller, HttpCode, Ip, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { DomainError } from '../common/domain-error';
import { ok, type SuccessEnvelope } from '../common/envelope';
import { Fails, Ok } from '../openapi/openapi-schemas';
import { CurrentUser, Public } from './auth.decorators';
import { CookieSessions, type CookieSessionStarted } from './cookie-session.service';
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
    private readonly cookieSessions: CookieSessions,
  ) {}

  @Public()
  @Post('login')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Password login (decision 20): {email, password} or {username, password}',
    description:
      'With session: "cookie" (the admin UI) the token is not answered: it is set in the HttpOnly SameSite=Strict cookie gateway_session ' +
      '(Secure over HTTPS), which the API accepts beside Bearer, with a readable gateway_csrf cookie. Requests authenticated by the ' +
      'cookie must send that value in X-CSRF-Token on POST, PUT, PATCH and DELETE, or get 403 CSRF_TOKEN_INVALID.',
  })
  @Ok(200, {
    oneOf: [
      {
        type: 'object',
        required: ['token', 'expiresIn'],
        properties: { token: { type: 'string', description: 'HS256 JWT: send as Authorization: Bearer <token>' }, expiresIn: { type: 'integer', example: 86400, description: 'Seconds' } },
      },
      {
        type: 'object',
        description: 'session: "cookie": Set-Cookie gateway_session (HttpOnly) and gateway_csrf',
        required: ['session', 'expiresIn'],
        properties: { session: { type: 'string', enum: ['cookie'] }, expiresIn: { type: 'integer', example: 86400, description: 'Seconds' } },
      },
    ],
  })
  @Fails(400, 'VALIDATION_ERROR: a missing or unknown field (details.fields)')
  @Fails(401, 'INVALID_CREDENTIALS: the same answer for an unknown email and a wrong password')
  @Fails(429, 'RATE_LIMITED (credentials tier: 5 per 15 minutes per client)')
  async login(
    @Body() body: LoginDto,
    @Ip() ip: string,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<SuccessEnvelope<LoginResult | CookieSessionStarted>> {
    const result = await this.logins.login(body.email ?? body.username ?? '', body.password, ip);
    if (body.session !== 'cookie') return ok(result);
    return ok(this.cookieSessions.start(req, res, result.token, result.expiresIn));
  }

  @Post('logout')
  @HttpCode(200)
  @ApiOperation({ summary: 'Revokes the presented token (Bearer or session cookie) until it expires and its SSO session; expires the session cookies' })
  @Ok(200, {
    type: 'object',
    required: ['loggedOut'],
    properties: {
      loggedOut: { type: 'boolean', enum: [true] },
      sloUrl: { type: 'string', format: 'uri', description: 'SSO sessions when the IdP has a single logout endpoint: a signed SP-initiated LogoutRequest (HTTP-Redirect) to send the browser to' },
    },
  })
  @Fails(503, 'AUTH_SERVICE_UNAVAILABLE: the session service did not answer')
  @Fails(403, 'CSRF_TOKEN_INVALID: a cookie session without the X-CSRF-Token header')
  async logout(
    @CurrentUser() user: AuthenticatedUser,
    @Ip() ip: string,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<SuccessEnvelope<{ loggedOut: true; sloUrl?: string }>> {
    const next = await this.logouts.logout(user, ip);
    this.cookieSessions.end(req, res);
    return ok({ loggedOut: true, ...next });
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
