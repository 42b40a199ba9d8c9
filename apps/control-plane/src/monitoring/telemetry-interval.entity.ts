import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { ClusterSecond } from '@gateway/events';

/** Epoch ms in a bigint column: PostgreSQL hands bigints back as strings. */
const EPOCH_MS = { to: (value: number) => value, from: (value: string | number) => Number(value) };

/**
 * One rolled-up interval of the cluster's telemetry: a minute (kept 24 hours, restored into the
 * series at boot) or an hour (kept 8 days, the detectors' baselines). Every control-plane instance
 * computes the same intervals; the first to write one wins, the others' inserts are ignored.
 */
@Entity({ name: 'telemetry_intervals' })
export class TelemetryIntervalEntity {
  @PrimaryColumn({ type: 'varchar', length: 8 })
  resolution!: 'minute' | 'hour';

  @PrimaryColumn({ type: 'bigint', transformer: EPOCH_MS })
  start!: number;

  /** The merged interval: totals, per route and per upstream counts with p50/p95/p99 (ClusterSecond). */
  @Column({ type: 'simple-json' })
  data!: ClusterSecond;
}
