import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A logged-out token's jti, kept until the token would have expired anyway (decision 20); or
 * `user:<id>` for a deleted user, kept for one token lifetime so none of their tokens works.
 */
@Entity({ name: 'revoked_tokens' })
export class RevokedTokenEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  jti!: string;

  @Column({ name: 'expires_at' })
  expiresAt!: Date;
}

/** The revocation key that stands for every token of a user. */
export function subjectRevocationKey(userId: string): string {
  return `user:${userId}`.slice(0, 64);
}
