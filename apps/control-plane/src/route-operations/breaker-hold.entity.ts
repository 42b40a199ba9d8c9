import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A route breaker held OPEN until `until` by a runbook execution. The row is what makes the hold
 * reach data planes that start (or fetch a snapshot) while it lasts: the snapshot lists live holds.
 */
@Entity({ name: 'breaker_holds' })
export class BreakerHoldEntity {
  @PrimaryColumn({ name: 'route_id', type: 'varchar', length: 64 })
  routeId!: string;

  @Column({ type: Date })
  until!: Date;

  @Column({ name: 'execution_id', type: 'varchar', length: 36 })
  executionId!: string;
}
