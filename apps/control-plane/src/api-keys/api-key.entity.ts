import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * One API key (decision 22). Only HMAC-SHA256(API_KEY_SECRET, key) is stored, with a short prefix
 * of the key for people to recognise it; the key itself is shown once, in the create response.
 * Revoked keys stay (revokedAt set) so the list shows who had access and the digest is never reused.
 */
@Entity({ name: 'api_keys' })
export class ApiKeyEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ type: 'varchar', length: 100 })
  name!: string;

  /** The first characters of the key (`gw_` and 6 more): not enough to guess the rest. */
  @Column({ type: 'varchar', length: 16 })
  prefix!: string;

  /** Lower-case hex HMAC-SHA256(API_KEY_SECRET, key); unique. */
  @Column({ type: 'varchar', length: 64, unique: true })
  digest!: string;

  /** Id of the admin who created it. */
  @Column({ name: 'created_by', type: 'varchar', length: 36 })
  createdBy!: string;

  // Set by the service, not the database default: SQLite's default has the wrong precision.
  @Column({ name: 'created_at' })
  createdAt!: Date;

  @Column({ name: 'expires_at', nullable: true, type: Date })
  expiresAt!: Date | null;

  @Column({ name: 'revoked_at', nullable: true, type: Date })
  revokedAt!: Date | null;
}
