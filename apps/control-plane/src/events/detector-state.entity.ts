import { Column, Entity, PrimaryColumn } from 'typeorm';

const EPOCH_MS = { to: (value: number) => value, from: (value: string | number) => Number(value) };

/**
 * The detectors' persisted state (baselines, rolling windows, open incidents) as one JSON row, so
 * a restart or a new lease holder goes on where the last one stopped. Written by the holder of the
 * detectors' lease only, fenced by its token.
 */
@Entity({ name: 'detector_state' })
export class DetectorStateEntity {
  @PrimaryColumn({ type: 'varchar', length: 50 })
  name!: string;

  @Column({ type: 'text' })
  state!: string;

  /** End of the last evaluated tick (epoch ms). */
  @Column({ name: 'evaluated_until_ms', type: 'bigint', transformer: EPOCH_MS })
  evaluatedUntilMs!: number;

  @Column({ name: 'lease_token', type: 'integer' })
  leaseToken!: number;
}
