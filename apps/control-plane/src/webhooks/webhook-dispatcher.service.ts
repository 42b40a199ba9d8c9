import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { InjectRepository } from '@nestjs/typeorm';
import { LessThan, Not, type Repository } from 'typeorm';
import { CONTROL_PLANE_CONFIG } from '../config/config.tokens';
import type { ControlPlaneConfig } from '../config/control-plane-config';
import { holdLeaseWhile } from '../lease/lease-renewal';
import { Lease, type LeaseGrant } from '../lease/lease.service';
import { WebhookAttempt } from './webhook-attempt.service';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';
import { DELIVERIES_DUE } from './webhook-queue.service';

/** The lease that makes one instance the sender of every webhook delivery. */
export const DELIVERY_LEASE = 'webhooks.delivery';
/** How long the lease outlives its holder: the pause before another instance takes over after a crash. */
const LEASE_TTL_MS = 10_000;
/** The holder renews this often, during a batch too (a batch lasts up to WEBHOOK_TIMEOUT). */
const RENEW_MS = 3000;
/** A claimed delivery is due again this long after its attempt's deadline if nothing was recorded (crash). */
const IN_FLIGHT_MARGIN_MS = 5000;
/** How often an idle instance looks for due deliveries (and for the lease, should its holder die). */
const POLL_MS = 1000;
/** Attempts in flight at once. */
const CONCURRENCY = 8;
/** Settled deliveries (and their attempts) are kept this long for the delivery log. */
const RETENTION_MS = 30 * 86_400_000;

/**
 * Sends due deliveries from the durable queue. Only the instance holding the delivery Lease sends;
 * the others poll for it and take over when its holder dies (lease expiry). A claimed delivery's
 * next attempt time is pushed past the attempt's deadline first, so a crash mid-attempt leaves it
 * due again later: delivery is at least once, never lost.
 */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private grant: LeaseGrant | undefined;
  private lastCleanup = 0;

  constructor(
    @Inject(CONTROL_PLANE_CONFIG) private readonly config: ControlPlaneConfig,
    @InjectRepository(WebhookDeliveryEntity) private readonly deliveries: Repository<WebhookDeliveryEntity>,
    private readonly lease: Lease,
    private readonly attempt: WebhookAttempt,
  ) {}

  onApplicationBootstrap(): void {
    this.schedule(0);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    if (this.grant !== undefined) await this.lease.release(this.grant).catch(() => undefined);
  }

  @OnEvent(DELIVERIES_DUE)
  wake(): void {
    if (this.running !== undefined) this.again = true;
    else this.schedule(0);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.running = this.cycle()
        .catch((error: unknown) => this.logger.error(`webhook dispatch failed: ${(error as Error).message}`))
        .then((nextMs) => {
          this.running = undefined;
          const again = this.again;
          this.again = false;
          this.schedule(again ? 0 : (nextMs ?? POLL_MS));
        });
    }, delayMs);
    this.timer.unref();
  }

  /** One pass; returns how long to wait before the next. */
  private async cycle(): Promise<number> {
    this.grant = await this.lease.acquire(DELIVERY_LEASE, LEASE_TTL_MS);
    if (this.grant === undefined) return POLL_MS;
    for (;;) {
      const due = await this.claim(this.grant);
      if (due.length === 0) break;
      await this.whileRenewing(Promise.all(due.map((delivery) => this.attempt.run(delivery, this.grant as LeaseGrant))));
      if (this.stopped) return POLL_MS;
      this.grant = await this.lease.acquire(DELIVERY_LEASE, LEASE_TTL_MS);
      if (this.grant === undefined) return POLL_MS;
    }
    await this.cleanUp();
    const next = await this.deliveries.findOne({ where: { status: 'pending' }, order: { nextAttemptAt: 'ASC' } });
    const wait = next?.nextAttemptAt === null || next === null ? POLL_MS : next.nextAttemptAt.getTime() - Date.now();
    return Math.max(0, Math.min(POLL_MS, wait));
  }

  /** Keeps the lease while `work` runs; a lost lease shows in the fenced writes of the attempts. */
  private whileRenewing<T>(work: Promise<T>): Promise<T> {
    return holdLeaseWhile(
      this.lease,
      { name: DELIVERY_LEASE, ttlMs: LEASE_TTL_MS, renewMs: RENEW_MS },
      work,
      (grant) => (this.grant = grant),
      (error) => this.logger.warn(`cannot renew the delivery lease: ${error.message}`),
    );
  }

  /**
   * Due deliveries of enabled endpoints (pings and redeliveries also of disabled ones), each
   * marked in flight by moving its next attempt past the attempt's deadline, under the lease.
   */
  private async claim(grant: LeaseGrant): Promise<WebhookDeliveryEntity[]> {
    const now = new Date();
    const candidates = await this.deliveries
      .createQueryBuilder('d')
      .innerJoin('webhooks', 'w', 'w.id = d.webhook_id')
      .where('d.status = :pending', { pending: 'pending' })
      .andWhere('d.next_attempt_at <= :now', { now })
      .andWhere('(w.enabled = :enabled OR d.counts_for_health = :uncounted)', { enabled: true, uncounted: false })
      .orderBy('d.next_attempt_at', 'ASC')
      .limit(CONCURRENCY)
      .getMany();
    const inFlightUntil = new Date(now.getTime() + this.config.webhooks.timeoutMs + IN_FLIGHT_MARGIN_MS);
    const claimed: WebhookDeliveryEntity[] = [];
    for (const delivery of candidates) {
      const update = await this.deliveries
        .createQueryBuilder()
        .update()
        .set({ nextAttemptAt: inFlightUntil })
        .where('id = :id AND status = :pending AND attempts = :attempts', { id: delivery.id, pending: 'pending', attempts: delivery.attempts })
        .andWhere('EXISTS (SELECT 1 FROM "leases" WHERE "name" = :lease AND "holder" = :holder AND "token" = :token)', { lease: grant.name, holder: grant.holder, token: grant.token })
        .execute();
      if ((update.affected ?? 0) > 0) claimed.push(delivery);
    }
    return claimed;
  }

  private async cleanUp(): Promise<void> {
    if (Date.now() - this.lastCleanup < 3_600_000) return;
    this.lastCleanup = Date.now();
    await this.deliveries.delete({ status: Not('pending'), updatedAt: LessThan(new Date(Date.now() - RETENTION_MS)) });
  }
}
