import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * One saved settings document. Every change (and restore) adds a row with the next version, so
 * the previous versions stay as they were (issue 14: backup); the highest version is current.
 * Secrets inside `document` are sealed (SecretBox).
 */
@Entity({ name: 'settings_versions' })
export class SettingsVersionEntity {
  @PrimaryColumn({ type: 'integer' })
  version!: number;

  @Column({ type: 'simple-json' })
  document!: Record<string, Record<string, unknown>>;

  @Column({ name: 'changed_at' })
  changedAt!: Date;

  /** The admin's email (or `system`). */
  @Column({ type: 'varchar', length: 320 })
  actor!: string;

  /** Set on a restore: the version whose document was restored. */
  @Column({ name: 'restored_from', type: 'integer', nullable: true })
  restoredFrom!: number | null;
}
