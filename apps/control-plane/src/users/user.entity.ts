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
}
