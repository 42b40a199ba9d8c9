import { ApiProperty } from '@nestjs/swagger';
import { USER_ROLES, type UserRole } from './user.entity';

/** What the API shows of a user (OpenAPI schema of UserAccount; never the hash). */
export class UserResponseDto {
  @ApiProperty({ example: '6f1c2c1e-6d8e-4d55-9f51-2f0c0e6b2d1a' })
  id!: string;

  @ApiProperty({ example: 'ada@example.com' })
  email!: string;

  @ApiProperty({ enum: USER_ROLES })
  role!: UserRole;

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ description: 'A disabled user can neither sign in nor use a token issued before.' })
  disabled!: boolean;
}
