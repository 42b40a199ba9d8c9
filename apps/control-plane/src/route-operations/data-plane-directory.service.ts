import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { PRESENCE_CHANNEL, PRESENCE_INTERVAL_MS, type DataPlanePresence, type MessageBus } from '@gateway/events';
import { MESSAGE_BUS } from '../config/config.tokens';
import { subscribeInBackground, type BackgroundSubscription } from '../common/background-subscription';
import { readPresence } from './operation-messages';

/** A data plane that missed this many announcements is no longer counted as live. */
const MISSED_INTERVALS = 3;
/** Bound on remembered data planes (a flood of made-up ids must not grow memory). */
const MAX_DATA_PLANES = 10_000;

/**
 * The data planes that follow this control plane, from their presence announcements: how many
 * answers a command waits for. Expiry uses the local receive time, so clock skew between hosts
 * does not matter.
 */
@Injectable()
export class DataPlaneDirectory implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('DataPlanes');
  private readonly seen = new Map<string, { presence: DataPlanePresence; receivedAt: number }>();
  private subscription: BackgroundSubscription | undefined;

  constructor(@Inject(MESSAGE_BUS) private readonly bus: MessageBus) {}

  onModuleInit(): void {
    // Not awaited: with Redis away the SUBSCRIBE waits for it, and the boot must not.
    this.subscription = subscribeInBackground(this.bus, PRESENCE_CHANNEL, (raw) => this.onPresence(raw), this.logger);
  }

  onModuleDestroy(): void {
    this.subscription?.close();
  }

  /** Data planes heard from within the last 3 intervals, by instance id. */
  live(now = Date.now()): DataPlanePresence[] {
    const horizon = now - MISSED_INTERVALS * PRESENCE_INTERVAL_MS;
    const live: DataPlanePresence[] = [];
    for (const [id, entry] of this.seen) {
      if (entry.receivedAt >= horizon) live.push(entry.presence);
      else this.seen.delete(id);
    }
    return live.sort((a, b) => a.instanceId.localeCompare(b.instanceId));
  }

  private onPresence(raw: unknown): void {
    const presence = readPresence(raw);
    if (presence === undefined) {
      this.logger.warn(`ignored a malformed presence message on ${PRESENCE_CHANNEL}`);
      return;
    }
    if (!this.seen.has(presence.instanceId)) {
      if (this.seen.size >= MAX_DATA_PLANES) this.live();
      if (this.seen.size >= MAX_DATA_PLANES) return;
      this.logger.log(`data plane ${presence.instanceId} joined`);
    }
    this.seen.set(presence.instanceId, { presence, receivedAt: Date.now() });
  }
}
