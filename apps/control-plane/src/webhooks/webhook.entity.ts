import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A webhook endpoint. `secret` and `previousSecret` hold the signing secrets sealed by
 * WebhookSecretBox, never in plain text; `previousSecret` signs too until `previousSecretUntil`.
 */
@Entity({ name: 'webhooks' })
export class WebhookEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ type: 'varchar', length: 2048 })
  url!: string;

  /** Event kinds, `prefix.*` patterns or `*`. */
  @Column({ type: 'simple-json' })
  events!: string[];

  /** Only events with one of these severities (events without a severity always pass); null: all. */
  @Column({ type: 'simple-json', nullable: true })
  severity!: string[] | null;

  @Column({ type: 'boolean' })
  enabled!: boolean;

  @Column({ type: 'varchar', length: 200, nullable: true })
  description!: string | null;

  @Column({ name: 'created_by', type: 'varchar', length: 36 })
  createdBy!: string;

  @Column({ type: 'text' })
  secret!: string;

  @Column({ name: 'previous_secret', type: 'text', nullable: true })
  previousSecret!: string | null;

  @Column({ name: 'previous_secret_until', type: Date, nullable: true })
  previousSecretUntil!: Date | null;

  /** Why the gateway disabled it (410, failing too long); null when an admin did or it is enabled. */
  @Column({ name: 'disabled_reason', type: 'varchar', length: 200, nullable: true })
  disabledReason!: string | null;

  /** Since when every counted attempt failed; null after a success. */
  @Column({ name: 'failing_since', type: Date, nullable: true })
  failingSince!: Date | null;

  @Column({ name: 'created_at' })
  createdAt!: Date;

  @Column({ name: 'updated_at' })
  updatedAt!: Date;
}
