import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { EVENTS_CHANNEL, type MessageBus } from '@gateway/events';
import { MESSAGE_BUS } from '../config/config.tokens';
import { subscribeInBackground, type BackgroundSubscription } from '../common/background-subscription';
import { asGatewayEvent } from './gateway-event';
import { BreakerOpeningGroups } from './breaker-opening-groups.service';
import { GatewayEventPublisher } from './gateway-event-publisher.service';

/**
 * Data planes publish their events (a breaker opening, ...) on the bus; this passes each one on as
 * an in-process gateway event. Every control-plane instance hears every bus event, so consumers
 * must be idempotent on the event id (webhooks enqueue one delivery per webhook and event).
 */
@Injectable()
export class BusEventsBridge implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('GatewayEvents');
  private subscription: BackgroundSubscription | undefined;

  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly publisher: GatewayEventPublisher,
    private readonly breakerOpenings: BreakerOpeningGroups,
  ) {}

  onApplicationBootstrap(): void {
    this.subscription = subscribeInBackground(
      this.bus,
      EVENTS_CHANNEL,
      (message) => {
        const event = asGatewayEvent(message);
        if (event === undefined) this.logger.warn('ignored a bus event without id, type, createdAt and data');
        // Several data planes report the same opening: grouped into one event (data.instanceIds).
        else if (event.type === 'circuit_breaker.opened') this.breakerOpenings.add(event);
        else this.publisher.forward(event);
      },
      this.logger,
    );
  }

  onApplicationShutdown(): void {
    this.subscription?.close();
  }
}
