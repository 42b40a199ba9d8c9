import { Column, Entity, PrimaryColumn } from 'typeorm';

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * One event for one webhook: the durable queue (a row survives restarts until it is delivered or
 * its attempts run out). `payload` is the exact body, the same bytes on every attempt.
 */
@Entity({ name: 'webhook_deliveries' })
export class WebhookDeliveryEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'webhook_id', type: 'varchar', length: 36 })
  webhookId!: string;

  @Column({ name: 'event_id', type: 'varchar', length: 64 })
  eventId!: string;

  @Column({ name: 'event_type', type: 'varchar', length: 100 })
  eventType!: string;

  @Column({ type: 'text' })
  payload!: string;

  @Column({ type: 'varchar', length: 16 })
  status!: DeliveryStatus;

  @Column({ type: 'integer' })
  attempts!: number;

  /** Attempts allowed in all: the schedule's, or one more for a redelivery or a test ping. */
  @Column({ name: 'max_attempts', type: 'integer' })
  maxAttempts!: number;

  /** When the next attempt is due (also pushed ahead while one is in flight); null once settled. */
  @Column({ name: 'next_attempt_at', type: Date, nullable: true })
  nextAttemptAt!: Date | null;

  /** False for test pings and redeliveries: they neither disable an endpoint nor mark it healthy. */
  @Column({ name: 'counts_for_health', type: 'boolean' })
  countsForHealth!: boolean;

  @Column({ name: 'created_at' })
  createdAt!: Date;

  @Column({ name: 'updated_at' })
  updatedAt!: Date;
}
