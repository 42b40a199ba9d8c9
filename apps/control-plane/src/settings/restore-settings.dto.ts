import { ApiProperty } from '@nestjs/swagger';
import { IsInt, Min } from 'class-validator';

/** `POST /api/settings`: brings back a saved version (as a new version; the history stays). */
export class RestoreSettingsDto {
  @ApiProperty({ minimum: 1, example: 3, description: 'A version listed by GET /api/settings/versions' })
  @IsInt({ message: 'restoreVersion must be an integer' })
  @Min(1, { message: 'restoreVersion must be 1 or more' })
  restoreVersion!: number;
}
