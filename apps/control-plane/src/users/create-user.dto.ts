import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsIn, IsString, MaxLength } from 'class-validator';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './password-policy';
import { USER_ROLES, type UserRole } from './user.entity';

/** `POST /api/users`. The password policy (beyond the type) is checked by the use case. */
export class CreateUserDto {
  @ApiProperty({ example: 'ada@example.com', maxLength: 320 })
  @IsString({ message: 'email is required' })
  @MaxLength(320, { message: 'email must be at most 320 characters' })
  @IsEmail({}, { message: 'email must be an email address' })
  email!: string;

  @ApiProperty({ minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH, description: 'At least 12 characters, not containing the email.' })
  @IsString({ message: 'password is required' })
  password!: string;

  @ApiProperty({ enum: USER_ROLES })
  @IsIn(USER_ROLES as unknown as UserRole[], { message: `role must be one of: ${USER_ROLES.join(', ')}` })
  role!: UserRole;
}
