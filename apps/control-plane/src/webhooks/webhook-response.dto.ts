import { ApiProperty } from '@nestjs/swagger';
import { DELIVERY_STATUSES, type DeliveryStatus } from './webhook-delivery.entity';

/** OpenAPI schema of WebhookResponse (never the secret). */
export class WebhookResponseDto {
  @ApiProperty() id!: string;
  @ApiProperty({ example: 'https://hooks.example.com/gateway' }) url!: string;
  @ApiProperty({ example: ['circuit_breaker.opened'] }) events!: string[];
  @ApiProperty({ type: [String], nullable: true, example: ['CRITICAL'] }) severity!: string[] | null;
  @ApiProperty() enabled!: boolean;
  @ApiProperty({ nullable: true }) description!: string | null;
  @ApiProperty({ nullable: true, example: 'the receiver answered 410 Gone', description: 'Why the gateway disabled it' }) disabledReason!: string | null;
  @ApiProperty({ format: 'date-time', nullable: true }) failingSince!: string | null;
  @ApiProperty({ format: 'date-time', nullable: true, description: 'Until when the previous secret signs beside the new one' }) previousSecretExpiresAt!: string | null;
  @ApiProperty() createdBy!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

/** Create and rotate: the secret, this once. */
export class WebhookWithSecretDto extends WebhookResponseDto {
  @ApiProperty({ example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', description: 'Shown only in this response; both signatures are keyed with its base64-decoded bytes' })
  secret!: string;
}

export class WebhookAttemptDto {
  @ApiProperty() attempt!: number;
  @ApiProperty({ format: 'date-time' }) at!: string;
  @ApiProperty({ nullable: true }) statusCode!: number | null;
  @ApiProperty() latencyMs!: number;
  @ApiProperty({ nullable: true, description: 'The first 2 KB of the answer' }) responseExcerpt!: string | null;
  @ApiProperty({ nullable: true }) error!: string | null;
}

export class WebhookDeliveryDto {
  @ApiProperty({ description: 'Also X-Gateway-Delivery' }) id!: string;
  @ApiProperty() webhookId!: string;
  @ApiProperty({ description: 'The body id and webhook-id: the same on every attempt and redelivery' }) eventId!: string;
  @ApiProperty() eventType!: string;
  @ApiProperty({ enum: DELIVERY_STATUSES }) status!: DeliveryStatus;
  @ApiProperty() attempts!: number;
  @ApiProperty() maxAttempts!: number;
  @ApiProperty({ format: 'date-time', nullable: true }) nextAttemptAt!: string | null;
  @ApiProperty({ description: 'False for test pings and redeliveries' }) countsForHealth!: boolean;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
  @ApiProperty({ type: [WebhookAttemptDto] }) attemptLog!: WebhookAttemptDto[];
}
