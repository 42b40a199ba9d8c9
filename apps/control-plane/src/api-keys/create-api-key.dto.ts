import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsISO8601, IsOptional, IsString, Matches, MaxLength, MinLength, ValidateBy, type ValidationOptions } from 'class-validator';

export const API_KEY_NAME_MAX_LENGTH = 100;

/** An ISO 8601 date-time with a time zone (`Z` or an offset), so its instant never depends on the server's zone. */
const DATE_TIME_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

function IsInTheFuture(options: ValidationOptions): PropertyDecorator {
  return ValidateBy({ name: 'isInTheFuture', validator: { validate: (value: unknown) => typeof value === 'string' && Date.parse(value) > Date.now() } }, options);
}

/** `POST /api/api-keys`. Unknown fields are refused by the validation pipe. */
export class CreateApiKeyDto {
  @ApiProperty({ example: 'billing-service', minLength: 1, maxLength: API_KEY_NAME_MAX_LENGTH, description: 'Who or what uses the key; not unique.' })
  @IsString({ message: 'name is required' })
  @MinLength(1, { message: 'name is required' })
  @MaxLength(API_KEY_NAME_MAX_LENGTH, { message: `name must be at most ${API_KEY_NAME_MAX_LENGTH} characters` })
  @Matches(/^(?=.*\S)[^\u0000-\u001f\u007f]*$/, { message: 'name must contain a visible character and no control characters' })
  name!: string;

  @ApiPropertyOptional({ format: 'date-time', example: '2030-01-01T00:00:00Z', description: 'When the key stops working (absent: never). ISO 8601 with a time zone, in the future.' })
  @IsOptional()
  @IsString({ message: 'expiresAt must be an ISO 8601 date-time with a time zone (e.g. 2030-01-01T00:00:00Z)' })
  @Matches(DATE_TIME_WITH_ZONE, { message: 'expiresAt must be an ISO 8601 date-time with a time zone (e.g. 2030-01-01T00:00:00Z)' })
  @IsISO8601({ strict: true }, { message: 'expiresAt must be an ISO 8601 date-time with a time zone (e.g. 2030-01-01T00:00:00Z)' })
  @IsInTheFuture({ message: 'expiresAt must be in the future' })
  expiresAt?: string;
}
