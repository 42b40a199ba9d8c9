import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A one-time code handed to a browser after SSO (never a token in a URL); single use, 60 s. */
@Entity({ name: 'saml_login_codes' })
export class SamlLoginCodeEntity {
  /** SHA-256 of the code: a leaked table cannot be replayed. */
  @PrimaryColumn({ name: 'code_hash', type: 'varchar', length: 64 })
  codeHash!: string;

  @Column({ name: 'browser_binding', type: 'varchar', length: 64 })
  browserBinding!: string;

  @Column({ name: 'user_id', type: 'varchar', length: 36 })
  userId!: string;

  @Column({ type: 'varchar', length: 320 })
  name!: string;

  /** The IdP's NameID and SessionIndex, for the session the exchange starts (single logout finds it by them). */
  @Column({ name: 'name_id', type: 'varchar', length: 1024, nullable: true })
  nameId!: string | null;

  @Column({ name: 'name_id_format', type: 'varchar', length: 256, nullable: true })
  nameIdFormat!: string | null;

  @Column({ name: 'session_index', type: 'varchar', length: 256, nullable: true })
  sessionIndex!: string | null;

  @Column({ name: 'expires_at' })
  expiresAt!: Date;
}
