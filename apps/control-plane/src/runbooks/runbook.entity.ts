import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { RunbookActionSpec } from './runbook-action';
import type { RunbookSafety, RunbookTrigger } from './runbook-definition';

@Entity({ name: 'runbooks' })
export class RunbookEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ type: 'varchar', length: 100, unique: true })
  name!: string;

  @Column({ type: 'boolean' })
  enabled!: boolean;

  @Column({ type: 'simple-json' })
  trigger!: RunbookTrigger;

  @Column({ type: 'simple-json' })
  actions!: RunbookActionSpec[];

  @Column({ type: 'simple-json' })
  safety!: RunbookSafety;

  @Column({ name: 'created_at' })
  createdAt!: Date;

  @Column({ name: 'updated_at' })
  updatedAt!: Date;
}
