import { IsOptional, IsString, MaxLength, ValidateIf } from 'class-validator';

/** Decision 20: `{username, password}` or `{email, password}`; the username is the email. */
export class LoginDto {
  @ValidateIf((body: LoginDto) => body.email === undefined)
  @IsString({ message: 'username or email is required' })
  @MaxLength(320)
  username?: string;

  @IsOptional()
  @IsString()
  @MaxLength(320)
  email?: string;

  @IsString({ message: 'password is required' })
  @MaxLength(1024)
  password!: string;
}
