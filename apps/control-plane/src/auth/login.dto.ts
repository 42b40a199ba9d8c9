import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength, ValidateIf } from 'class-validator';

/** Decision 20: `{username, password}` or `{email, password}`; the username is the email. */
export class LoginDto {
  @ApiPropertyOptional({ description: 'The email (spec 4.4 names it username); give this or email', example: 'admin@example.com' })
  @ValidateIf((body: LoginDto) => body.email === undefined)
  @IsString({ message: 'username or email is required' })
  @MaxLength(320)
  username?: string;

  @ApiPropertyOptional({ example: 'admin@example.com' })
  @IsOptional()
  @IsString()
  @MaxLength(320)
  email?: string;

  @ApiProperty({ format: 'password' })
  @IsString({ message: 'password is required' })
  @MaxLength(1024)
  password!: string;

  @ApiPropertyOptional({
    enum: ['cookie'],
    description:
      'cookie: start a browser session instead of answering the token: an HttpOnly SameSite=Strict cookie gateway_session (Secure over HTTPS) and a readable gateway_csrf cookie to echo in X-CSRF-Token on POST, PUT, PATCH and DELETE',
  })
  @IsOptional()
  @IsIn(['cookie'], { message: 'session must be "cookie" when given' })
  session?: 'cookie';
}
