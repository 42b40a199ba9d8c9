import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Who did what, when, from where (spec 6.4): management changes and authentication events. */
@Entity({ name: 'audit_log' })
export class AuditLogEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column()
  at!: Date;

  /** A user's email, `system`, or `anonymous`. */
  @Column({ type: 'varchar', length: 320 })
  actor!: string;

  /** `route.create`, `auth.login.failed`, `config.reconcile`, ... */
  @Column({ type: 'varchar', length: 64 })
  action!: string;

  @Column({ type: 'varchar', length: 255, nullable: true })
  target!: string | null;

  @Column({ type: 'varchar', length: 64, nullable: true })
  ip!: string | null;

  @Column({ type: 'simple-json', nullable: true })
  details!: Record<string, unknown> | null;
}
