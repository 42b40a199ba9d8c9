import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';

export class InitiateSamlDto {
  @ApiPropertyOptional({ description: 'A path on this origin or a URL on authentication.sso.allowedReturnUrls (default authentication.sso.returnUrl)', example: '/admin' })
  @IsOptional()
  @IsString({ message: 'returnUrl must be a string' })
  @MaxLength(2048)
  returnUrl?: string;
}

/** The HTTP-POST binding's form; the IdP may add fields (SigAlg...), so unknown ones are allowed. */
export class SamlCallbackForm {
  @ApiProperty({ description: 'base64 SAML Response (not deflated), at most 256 KiB' })
  SAMLResponse!: string;

  @ApiProperty({ description: 'the RelayState the initiate step handed to the IdP' })
  RelayState!: string;
}

export class ExchangeSamlCodeDto {
  @ApiProperty({ description: 'the one-time code from the return URL fragment (#code=...)' })
  @IsString({ message: 'code is required' })
  @MaxLength(128)
  code!: string;
}

export class ExchangeSamlCodeForSessionDto extends ExchangeSamlCodeDto {
  @ApiPropertyOptional({
    enum: ['cookie'],
    description: 'cookie (the admin UI): start the browser session instead of answering the token, as POST /api/auth/login does',
  })
  @IsOptional()
  @IsIn(['cookie'], { message: 'session must be "cookie" when given' })
  session?: 'cookie';
}
