import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * An AuthnRequest we sent and have not seen answered: kept in the database so any control-plane
 * instance can finish the login, consumed by the first response that names its RelayState.
 */
@Entity({ name: 'saml_requests' })
export class SamlRequestEntity {
  /** The AuthnRequest ID: the only InResponseTo accepted for this RelayState. */
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id!: string;

  @Column({ name: 'relay_state', type: 'varchar', length: 64, unique: true })
  relayState!: string;

  /** Validated at initiate (same-origin path or allow-listed URL). */
  @Column({ name: 'return_url', type: 'varchar', length: 2048 })
  returnUrl!: string;

  /** SHA-256 of the browser cookie set at initiate; a one-time code is bound to it. */
  @Column({ name: 'browser_binding', type: 'varchar', length: 64 })
  browserBinding!: string;

  @Column({ name: 'expires_at' })
  expiresAt!: Date;
}
