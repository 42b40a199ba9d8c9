import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength, ValidateIf } from 'class-validator';

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
}
