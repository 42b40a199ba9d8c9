import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { GATEWAY_EVENT_UPDATED, type AnyGatewayEvent } from '../gateway-events/gateway-event';
import { OnGatewayEvent } from '../gateway-events/on-gateway-event.decorator';
import { LeasedInterval } from '../lease/leased-interval';
import { Lease } from '../lease/lease.service';
import { LiveSettings } from '../settings/live-settings.service';
import { EventStore } from './event-store.service';

/** Test pings are deliveries to one webhook, not gateway events. */
const NOT_STORED = new Set(['webhook.ping']);
const PRUNE_LEASE = 'events.retention';
const PRUNE_INTERVAL_MS = 10 * 60_000;

/** Stores every gateway event this instance hears (a listener on `*`) and prunes past the retention. */
@Injectable()
export class EventRecorder implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Events');
  private readonly pruning: LeasedInterval;

  constructor(
    private readonly store: EventStore,
    private readonly settings: LiveSettings,
    lease: Lease,
  ) {
    this.pruning = new LeasedInterval(
      lease,
      {
        name: PRUNE_LEASE,
        ttlMs: 60_000,
        intervalMs: PRUNE_INTERVAL_MS,
        job: async () => {
          const removed = await this.store.prune(this.settings.general().eventRetentionDays);
          if (removed > 0) this.logger.log(`removed ${removed} events past the retention of ${this.settings.general().eventRetentionDays} days`);
        },
      },
      this.logger,
    );
  }

  onApplicationBootstrap(): void {
    void this.pruning.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.pruning.stop();
  }

  @OnGatewayEvent('*')
  async onEvent(event: AnyGatewayEvent): Promise<void> {
    if (NOT_STORED.has(event.type)) return;
    try {
      await this.store.record(event);
    } catch (error) {
      this.logger.error(`cannot store event ${event.id} (${event.type}): ${(error as Error).message}`);
    }
  }

  @OnEvent(GATEWAY_EVENT_UPDATED, { async: true, suppressErrors: true })
  async onUpdated(event: AnyGatewayEvent): Promise<void> {
    await this.store.update(event).catch((error: unknown) => this.logger.warn(`cannot update event ${event.id}: ${(error as Error).message}`));
  }
}
