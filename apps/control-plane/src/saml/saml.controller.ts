import { Body, Controller, Get, Header, HttpCode, Ip, Post, Req, Res } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOperation, ApiProduces, ApiResponse, ApiTags, type SchemaObject } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../auth/auth.decorators';
import { CookieSessions, type CookieSessionStarted } from '../auth/cookie-session.service';
import { DomainError } from '../common/domain-error';
import { ok, type SuccessEnvelope } from '../common/envelope';
import { Fails, Ok } from '../openapi/openapi-schemas';
import { bindBrowser, browserCookie } from './browser-binding';
import { ExchangeSamlCodeForSessionDto, InitiateSamlDto, SamlCallbackForm } from './saml.dto';
import { SamlLoginCodes } from './saml-login-codes.service';
import { SamlLoginService, type SamlResult } from './saml-login.service';
import { SamlLogoutService } from './saml-logout.service';

const SAML_RESULT: SchemaObject = {
  type: 'object',
  required: ['token', 'user', 'sessionId', 'expiresAt'],
  properties: {
    token: { type: 'string', description: 'management JWT (decision 20)' },
    user: { type: 'object', required: ['id', 'email', 'name', 'role'], properties: { id: { type: 'string' }, email: { type: 'string' }, name: { type: 'string' }, role: { type: 'string', enum: ['admin', 'user'] } } },
    sessionId: { type: 'string' },
    expiresAt: { type: 'string', format: 'date-time' },
  },
};

/** The exchange's answer for the admin UI: the token went into the HttpOnly cookie, never the page. */
type SsoCookieSession = CookieSessionStarted & Omit<SamlResult, 'token'>;

const COOKIE_SESSION: SchemaObject = {
  type: 'object',
  required: ['session', 'expiresIn', 'user', 'sessionId', 'expiresAt'],
  description: 'session: "cookie": Set-Cookie gateway_session (HttpOnly) and gateway_csrf; no token',
  properties: { session: { type: 'string', enum: ['cookie'] }, expiresIn: { type: 'integer', description: 'Seconds' }, user: SAML_RESULT.properties?.['user'] as SchemaObject, sessionId: { type: 'string' }, expiresAt: { type: 'string', format: 'date-time' } },
};

const NOT_CONFIGURED = Fails(503, 'SSO_NOT_CONFIGURED: authentication.sso is off or incomplete');

/** SAML 2.0 SSO (spec 2.7, 4.4): the POSTs are in the credentials tier, the metadata in the general one. */
@ApiTags('auth')
@Public()
@Controller('api/auth/saml')
export class SamlController {
  constructor(
    private readonly logins: SamlLoginService,
    private readonly codes: SamlLoginCodes,
    private readonly cookieSessions: CookieSessions,
    private readonly logouts: SamlLogoutService,
  ) {}

  @Post('initiate')
  @HttpCode(200)
  @ApiOperation({ summary: 'Starts an SSO login: the IdP address (HTTP-Redirect binding) and a browser cookie' })
  @Ok(200, { type: 'object', required: ['redirectUrl'], properties: { redirectUrl: { type: 'string', format: 'uri' } } })
  @Fails(400, 'VALIDATION_ERROR: returnUrl neither a same-origin path nor on the allow list')
  @NOT_CONFIGURED
  async initiate(@Body() body: InitiateSamlDto, @Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<SuccessEnvelope<{ redirectUrl: string }>> {
    const binding = bindBrowser(req, res);
    return ok({ redirectUrl: await this.logins.initiate(body.returnUrl, binding) });
  }

  @Post('callback')
  @HttpCode(200)
  @ApiOperation({ summary: 'The assertion consumer service: the SAML result, or for browsers (Accept: text/html) a 303 to the return URL with #code=<one-time code>' })
  @ApiConsumes('application/x-www-form-urlencoded')
  @ApiBody({ type: SamlCallbackForm })
  @Ok(200, SAML_RESULT)
  @ApiResponse({ status: 303, description: 'browsers: to the return URL, fragment code=<one-time code for POST /api/auth/saml/exchange>' })
  @Fails(401, 'SAML_REJECTED: the response was refused (the reason is in the audit log)')
  @NOT_CONFIGURED
  // A raw form: the IdP may post fields beyond SAMLResponse and RelayState (whitelisting would refuse them).
  async callback(@Req() req: Request, @Res({ passthrough: true }) res: Response, @Ip() ip: string): Promise<SuccessEnvelope<SamlResult> | undefined> {
    const form = (typeof req.body === 'object' && req.body !== null ? req.body : {}) as Record<string, unknown>;
    const login = await this.logins.accept({ SAMLResponse: form['SAMLResponse'], RelayState: form['RelayState'] }, ip);
    // API clients (JSON or no preference) get the result; a browser's form post asks for HTML.
    if (req.accepts(['application/json', 'text/html']) !== 'text/html') {
      const result = await this.logins.result(login.account, login.name, login.idp);
      if (result === undefined) throw new DomainError('SAML_REJECTED');
      return ok(result);
    }
    // An IdP-initiated login has no cookie from initiate: this browser is bound now, by this answer.
    const browserBinding = login.browserBinding ?? bindBrowser(req, res);
    const code = await this.codes.issue({ userId: login.account.id, name: login.name, browserBinding, idp: login.idp });
    // The code rides in the fragment: never sent to a server, so no log or Referer holds it.
    res.redirect(303, `${login.returnUrl.split('#')[0]}#code=${code}`);
    return undefined;
  }

  @Post('exchange')
  @HttpCode(200)
  @ApiOperation({ summary: 'Trades a one-time code (single use, 60 s, same browser) for the SAML result, or with session: "cookie" for the browser session' })
  @Ok(200, { oneOf: [SAML_RESULT, COOKIE_SESSION] })
  @Fails(400, 'VALIDATION_ERROR: code missing, not a string or longer than 128 characters; session not "cookie"')
  @Fails(401, 'SAML_REJECTED: unknown, used or expired code, or another browser')
  async exchange(@Body() body: ExchangeSamlCodeForSessionDto, @Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<SuccessEnvelope<SamlResult | SsoCookieSession>> {
    const redeemed = await this.codes.redeem(body.code, browserCookie(req));
    const result = redeemed === undefined ? undefined : await this.logins.resultFor(redeemed.userId, redeemed.name, redeemed.idp);
    if (result === undefined) throw new DomainError('SAML_REJECTED', 'The login code is unknown, used, expired or was issued to another browser');
    if (body.session !== 'cookie') return ok(result);
    const expiresIn = Math.max(1, Math.round((Date.parse(result.expiresAt) - Date.now()) / 1000));
    return ok({ ...this.cookieSessions.start(req, res, result.token, expiresIn), user: result.user, sessionId: result.sessionId, expiresAt: result.expiresAt });
  }

  @Get('logout')
  @ApiOperation({ summary: 'Single logout endpoint (HTTP-Redirect): a signed LogoutRequest from the IdP ends that subject\'s sessions (302 to the IdP with a LogoutResponse); a LogoutResponse to our request returns the browser to the return URL' })
  @ApiResponse({ status: 302, description: 'to the IdP (LogoutResponse) or to the return URL' })
  @Fails(401, 'SAML_REJECTED: unsigned, wrongly signed, unknown or malformed logout message (the reason is in the audit log)')
  @NOT_CONFIGURED
  async logout(@Req() req: Request, @Res() res: Response, @Ip() ip: string): Promise<void> {
    const query = Object.fromEntries(Object.entries(req.query).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
    res.redirect(302, await this.logouts.receive(query, req.originalUrl, ip));
  }

  @Get('metadata')
  @Header('Content-Type', 'application/samlmetadata+xml; charset=utf-8')
  @ApiOperation({ summary: 'SP metadata XML, for the identity provider (public)' })
  @ApiProduces('application/samlmetadata+xml')
  @ApiResponse({
    status: 200,
    description: 'EntityDescriptor with the ACS URL (HTTP-POST) and the SP certificate when configured',
    content: { 'application/samlmetadata+xml': { schema: { type: 'string' } } },
  })
  @NOT_CONFIGURED
  async metadata(): Promise<string> {
    return this.logins.metadata();
  }
}
