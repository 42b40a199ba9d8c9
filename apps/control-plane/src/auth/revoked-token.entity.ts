import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A logged-out token's jti, kept until the token would have expired anyway (decision 20). */
@Entity({ name: 'revoked_tokens' })
export class RevokedTokenEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  jti!: string;

  @Column({ name: 'expires_at' })
  expiresAt!: Date;
}
