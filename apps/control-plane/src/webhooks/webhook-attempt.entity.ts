import { Column, Entity, PrimaryColumn } from 'typeorm';

/** One HTTP attempt of a delivery, kept for the delivery log. */
@Entity({ name: 'webhook_attempts' })
export class WebhookAttemptEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'delivery_id', type: 'varchar', length: 36 })
  deliveryId!: string;

  @Column({ type: 'integer' })
  attempt!: number;

  @Column()
  at!: Date;

  @Column({ name: 'status_code', type: 'integer', nullable: true })
  statusCode!: number | null;

  @Column({ name: 'latency_ms', type: 'integer' })
  latencyMs!: number;

  /** The first 2 KB of the answer. */
  @Column({ name: 'response_excerpt', type: 'text', nullable: true })
  responseExcerpt!: string | null;

  @Column({ type: 'varchar', length: 500, nullable: true })
  error!: string | null;
}
