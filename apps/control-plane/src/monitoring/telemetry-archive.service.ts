import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Between, LessThan, MoreThanOrEqual, type Repository } from 'typeorm';
import type { ClusterSecond } from '@gateway/events';
import { CONTROL_PLANE_CONFIG } from '../config/config.tokens';
import type { ControlPlaneConfig } from '../config/control-plane-config';
import { LeasedInterval } from '../lease/leased-interval';
import { Lease } from '../lease/lease.service';
import type { RollupResolution } from './cluster-series';
import { TelemetryIntervalEntity } from './telemetry-interval.entity';
import { TelemetryIngest } from './telemetry-ingest.service';

/** Issue 12: minutes answer the last 24 hours; hours are the detectors' 8-day baselines. */
const KEPT_MS: Record<RollupResolution, number> = { minute: 86_400_000, hour: 8 * 86_400_000 };
const PRUNE_INTERVAL_MS = 10 * 60_000;
/** The lease that makes one control-plane instance the pruner (docs/control-plane.md "Leases"). */
export const TELEMETRY_PRUNE_LEASE = 'telemetry.prune';

/**
 * Persists the sealed minutes and hours of the cluster series and puts the minutes of the last 24
 * hours back into the series at boot, so a restarted or new control-plane instance answers them
 * at once (only the 1-second series starts empty).
 */
@Injectable()
export class TelemetryArchive implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('TelemetryArchive');
  private stopListening: (() => void) | undefined;
  private readonly schedule: LeasedInterval;
  /** Writes in flight, so close waits for them (a test or shutdown must not cut one). */
  private readonly writing = new Set<Promise<void>>();

  constructor(
    @Inject(CONTROL_PLANE_CONFIG) config: Pick<ControlPlaneConfig, 'leases'>,
    lease: Lease,
    @InjectRepository(TelemetryIntervalEntity) private readonly intervals: Repository<TelemetryIntervalEntity>,
    // Only the series: a test hands one with its own clock.
    @Inject(TelemetryIngest) private readonly ingest: Pick<TelemetryIngest, 'series'>,
  ) {
    const { ttlMs } = config.leases;
    const job = () => this.prune(Date.now());
    this.schedule = new LeasedInterval(lease, { name: TELEMETRY_PRUNE_LEASE, ttlMs, intervalMs: PRUNE_INTERVAL_MS, job }, this.logger);
  }

  async onModuleInit(): Promise<void> {
    await this.restore(Date.now());
    this.stopListening = this.ingest.series.onRollup((resolution, interval) => this.track(this.save(resolution, interval)));
    void this.schedule.start();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopListening?.();
    await this.schedule.stop();
    await Promise.all(this.writing);
  }

  async restore(now: number): Promise<number> {
    const rows = await this.intervals.find({ where: { resolution: 'minute', start: MoreThanOrEqual(now - KEPT_MS.minute) }, order: { start: 'ASC' } });
    this.ingest.series.restoreMinutes(rows.map((row) => row.data));
    return rows.length;
  }

  /** Hours with start in [fromMs, toMs), oldest first (the detectors' baselines). */
  async hours(fromMs: number, toMs: number): Promise<ClusterSecond[]> {
    const rows = await this.intervals.find({ where: { resolution: 'hour', start: Between(fromMs, toMs - 1) }, order: { start: 'ASC' } });
    return rows.map((row) => row.data);
  }

  /** Every instance writes the same interval: the first insert wins, the others are ignored. */
  async save(resolution: RollupResolution, interval: ClusterSecond): Promise<void> {
    try {
      await this.intervals.createQueryBuilder().insert().values({ resolution, start: interval.start, data: interval }).orIgnore().execute();
    } catch (error) {
      // The in-memory series still has it; only a restart within 24 hours would miss it.
      this.logger.warn(`could not persist the telemetry ${resolution} of ${new Date(interval.start).toISOString()}: ${(error as Error).message}`);
    }
  }

  async prune(now: number): Promise<void> {
    try {
      for (const resolution of ['minute', 'hour'] as const) await this.intervals.delete({ resolution, start: LessThan(now - KEPT_MS[resolution]) });
    } catch (error) {
      this.logger.warn(`could not prune telemetry intervals: ${(error as Error).message}`);
    }
  }

  private track(write: Promise<void>): void {
    this.writing.add(write);
    void write.finally(() => this.writing.delete(write));
  }
}
