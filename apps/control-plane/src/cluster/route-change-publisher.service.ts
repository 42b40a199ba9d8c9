import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { HEARTBEAT_INTERVAL_MS, ROUTE_CHANGES_CHANNEL, type MessageBus, type RouteChangeMessage } from '@gateway/events';
import { MESSAGE_BUS } from '../config/config.tokens';
import { ConfigRevisionService } from './config-revision.service';

/** Contracts: data planes fetch a snapshot after 3 s without a message. */

/**
 * Puts route-change messages on the bus. Callers publish only after their transaction committed
 * (RouteChanges does that), so a data plane that fetches a snapshot on a message sees the change.
 * Publishing never throws: messages are hints, and the heartbeat carries the current revision so
 * a data plane that missed one notices within a second.
 */
@Injectable()
export class RouteChangePublisher implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('RouteChanges');
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> | undefined;

  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly revisions: ConfigRevisionService,
  ) {}

  async publish(message: RouteChangeMessage): Promise<void> {
    try {
      await this.bus.publish(ROUTE_CHANGES_CHANNEL, message);
    } catch (error) {
      this.logger.warn(`publishing a ${message.kind} message failed: ${(error as Error).message}`);
    }
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      // One heartbeat at a time: a slow database must not pile them up.
      this.beating ??= this.beat().finally(() => (this.beating = undefined));
    }, HEARTBEAT_INTERVAL_MS);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.beating;
  }

  private async beat(): Promise<void> {
    let version: number;
    try {
      // Read each time: another control plane may have changed the route set.
      version = await this.revisions.current();
    } catch (error) {
      this.logger.warn(`heartbeat skipped, revision unreadable: ${(error as Error).message}`);
      return;
    }
    await this.publish({ kind: 'heartbeat', version });
  }
}
