import { ApiProperty } from '@nestjs/swagger';
import { API_KEY_STATUSES, type ApiKeyStatus } from './api-key-status';

/** OpenAPI schema of ApiKeyResponse: what the API shows of a key (never the key or its digest). */
export class ApiKeyResponseDto {
  @ApiProperty({ example: '0b5e7c9e-3f7a-4a55-8d1b-2c6f3e9a1d42', description: 'Sent upstream as X-Gateway-Key-Id' })
  id!: string;

  @ApiProperty({ example: 'billing-service' })
  name!: string;

  @ApiProperty({ example: 'gw_Q2xhcn', description: 'The first characters of the key, to recognise it' })
  prefix!: string;

  @ApiProperty({ enum: API_KEY_STATUSES })
  status!: ApiKeyStatus;

  @ApiProperty({ description: 'Id of the admin who created the key' })
  createdBy!: string;

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ format: 'date-time', nullable: true })
  expiresAt!: string | null;

  @ApiProperty({ format: 'date-time', nullable: true })
  revokedAt!: string | null;
}

/** The create response: the key, in plain text, this once. */
export class CreatedApiKeyDto extends ApiKeyResponseDto {
  @ApiProperty({ example: 'gw_Q2xhcnZveWFudC1leGFtcGxlLWtleS1ub3QtcmVhbA', description: 'Shown only in this response; store it now' })
  key!: string;
}
