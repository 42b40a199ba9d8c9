import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

export const USER_ROLES = ['admin', 'user'] as const;
export type UserRole = (typeof USER_ROLES)[number];

@Entity({ name: 'users' })
export class UserEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  /** Stored lower-cased; unique. */
  @Column({ type: 'varchar', length: 320, unique: true })
  email!: string;

  /** PHC-style scrypt string (PasswordHasher). */
  @Column({ name: 'password_hash', type: 'varchar', length: 255 })
  passwordHash!: string;

  @Column({ type: 'varchar', length: 16 })
  role!: UserRole;

  @CreateDateColumn({ name: 'created_at' })
  createdAt!: Date;

  /** A disabled user keeps the account but can neither sign in nor use a token (issue 14). */
  @Column({ type: 'boolean', default: false })
  disabled!: boolean;

  /**
   * Bumped when the user is disabled: a token carries the generation it was issued under (`gen`)
   * and is refused once they differ, so re-enabling the user does not revive tokens issued before.
   */
  @Column({ name: 'token_generation', type: 'integer', default: 0 })
  tokenGeneration!: number;
}
