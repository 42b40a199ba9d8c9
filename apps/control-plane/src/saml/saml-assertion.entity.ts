import { Column, Entity, PrimaryColumn } from 'typeorm';

/** An accepted assertion's ID, kept until it expires so the same assertion is never accepted twice. */
@Entity({ name: 'saml_assertions' })
export class SamlAssertionEntity {
  /** SHA-256 of issuer and assertion ID (IDs can be long and are chosen by the IdP). */
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id!: string;

  @Column({ name: 'expires_at' })
  expiresAt!: Date;
}
