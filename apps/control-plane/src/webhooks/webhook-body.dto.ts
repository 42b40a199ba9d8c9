import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min, ValidateBy, type ValidationOptions } from 'class-validator';

export const SEVERITIES = ['INFO', 'WARNING', 'CRITICAL'] as const;
/** A kind (`circuit_breaker.opened`, `ERROR_RATE_SPIKE`), a prefix pattern (`circuit_breaker.*`) or `*`. */
const EVENT_PATTERN = /^(\*|[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*(\.\*)?)$/;

function IsWebhookUrl(options: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isWebhookUrl',
      validator: {
        validate: (value: unknown) => {
          if (typeof value !== 'string') return false;
          try {
            const url = new URL(value);
            return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '' && url.username === '' && url.password === '';
          } catch {
            return false;
          }
        },
      },
    },
    options,
  );
}

/** `POST /api/webhooks` and `PUT /api/webhooks/:id` (the whole webhook but its secret). */
export class WebhookBodyDto {
  @ApiProperty({ example: 'https://hooks.example.com/gateway', maxLength: 2048, description: 'http(s) URL without credentials; private, loopback and link-local targets are refused unless OUTBOUND_ALLOW_CIDRS allows them' })
  @IsString({ message: 'url is required' })
  @MaxLength(2048, { message: 'url must be at most 2048 characters' })
  @IsWebhookUrl({ message: 'url must be an http:// or https:// URL with a host and without user:password' })
  url!: string;

  @ApiProperty({ example: ['circuit_breaker.opened', 'ERROR_RATE_SPIKE'], description: 'Event kinds, `prefix.*` patterns, or `*` for every kind' })
  @IsArray({ message: 'events must be an array of event kinds (or ["*"])' })
  @ArrayMinSize(1, { message: 'events must name at least one kind (or "*")' })
  @ArrayMaxSize(50, { message: 'events may hold at most 50 entries' })
  @Matches(EVENT_PATTERN, { each: true, message: 'events entries must be event kinds such as circuit_breaker.opened, a prefix.* pattern, or *' })
  events!: string[];

  @ApiPropertyOptional({ enum: SEVERITIES, isArray: true, nullable: true, description: 'Only events with one of these severities; events without a severity always pass. Absent or null: all.' })
  @IsOptional()
  @IsArray({ message: `severity must be an array of ${SEVERITIES.join(', ')}` })
  @ArrayMinSize(1, { message: 'severity must name at least one severity (or be null)' })
  @IsIn(SEVERITIES as unknown as string[], { each: true, message: `severity entries must be one of: ${SEVERITIES.join(', ')}` })
  severity?: string[] | null;

  @ApiPropertyOptional({ default: true })
  @IsOptional()
  @IsBoolean({ message: 'enabled must be true or false' })
  enabled?: boolean;

  @ApiPropertyOptional({ maxLength: 200, nullable: true })
  @IsOptional()
  @IsString({ message: 'description must be a string' })
  @MaxLength(200, { message: 'description must be at most 200 characters' })
  description?: string | null;
}

/** `PATCH /api/webhooks/:id`: any of the fields; absent ones are kept. */
export class PatchWebhookDto extends PartialType(WebhookBodyDto) {}

/** `POST /api/webhooks/:id/rotate-secret`. */
export class RotateSecretDto {
  @ApiPropertyOptional({ default: 86_400, minimum: 0, maximum: 604_800, description: 'How long the previous secret keeps signing beside the new one, in seconds (0: stop at once)' })
  @IsOptional()
  @IsInt({ message: 'overlapSeconds must be a whole number of seconds' })
  @Min(0, { message: 'overlapSeconds must be between 0 and 604800 (7 days)' })
  @Max(604_800, { message: 'overlapSeconds must be between 0 and 604800 (7 days)' })
  overlapSeconds?: number;
}
