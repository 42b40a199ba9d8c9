import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../auth/auth.decorators';
import { ok, type SuccessEnvelope } from '../common/envelope';
import { Ok } from '../openapi/openapi-schemas';
import { SamlLoginService } from './saml-login.service';

export interface AuthMethods {
  password: true;
  sso: { enabled: boolean; initiateUrl?: string };
}

/**
 * How one can sign in, for the sign-in page before anyone is signed in: public (general tier) and
 * free of configuration detail, so it tells nobody more than the sign-in page itself shows.
 */
@ApiTags('auth')
@Public()
@Controller('api/auth')
export class AuthMethodsController {
  constructor(private readonly logins: SamlLoginService) {}

  @Get('methods')
  @ApiOperation({ summary: 'The sign-in methods on offer (public): password always, SAML SSO when authentication.sso is on and complete' })
  @Ok(200, {
    type: 'object',
    required: ['password', 'sso'],
    properties: {
      password: { type: 'boolean', enum: [true] },
      sso: {
        type: 'object',
        required: ['enabled'],
        properties: { enabled: { type: 'boolean' }, initiateUrl: { type: 'string', example: '/api/auth/saml/initiate', description: 'POST {returnUrl} here to start an SSO login' } },
      },
    },
  })
  async methods(): Promise<SuccessEnvelope<AuthMethods>> {
    const enabled = await this.logins.ssoAvailable();
    return ok({ password: true, sso: enabled ? { enabled, initiateUrl: '/api/auth/saml/initiate' } : { enabled } });
  }
}
