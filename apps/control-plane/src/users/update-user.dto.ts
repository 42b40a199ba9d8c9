import { ApiProperty } from '@nestjs/swagger';
import { IsBoolean } from 'class-validator';

/** `PATCH /api/users/:id`: only the disabled flag changes this way. */
export class UpdateUserDto {
  @ApiProperty({ description: 'true: the user can no longer sign in and every token issued so far is refused at once.' })
  @IsBoolean({ message: 'disabled must be a boolean' })
  disabled!: boolean;
}
