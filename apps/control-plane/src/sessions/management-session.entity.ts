import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A management session (decision 23) started by SSO. Without a session service the row is the
 * session; with one, the row mirrors the service's session id so an IdP logout (NameID,
 * SessionIndex) finds what to revoke there.
 */
@Entity({ name: 'management_sessions' })
export class ManagementSessionEntity {
  @PrimaryColumn({ type: 'varchar', length: 128 })
  id!: string;

  @Column({ name: 'user_id', type: 'varchar', length: 36 })
  userId!: string;

  /** The IdP's subject and session: what a LogoutRequest names. */
  @Column({ name: 'name_id', type: 'varchar', length: 1024, nullable: true })
  nameId!: string | null;

  @Column({ name: 'name_id_format', type: 'varchar', length: 256, nullable: true })
  nameIdFormat!: string | null;

  @Column({ name: 'session_index', type: 'varchar', length: 256, nullable: true })
  sessionIndex!: string | null;

  @Column({ name: 'expires_at' })
  expiresAt!: Date;

  @Column({ name: 'revoked_at', nullable: true, type: Date })
  revokedAt!: Date | null;

  @Column({ name: 'created_at' })
  createdAt!: Date;
}
