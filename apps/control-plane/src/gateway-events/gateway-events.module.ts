import { Module } from '@nestjs/common';
import { BreakerOpeningGroups } from './breaker-opening-groups.service';
import { BusEventsBridge } from './bus-events.bridge';
import { GatewayEventPublisher } from './gateway-event-publisher.service';

/** Gateway events inside the control plane: the publisher, and the bridge from the data planes' bus channel (breaker openings grouped). */
@Module({
  providers: [GatewayEventPublisher, BusEventsBridge, BreakerOpeningGroups],
  exports: [GatewayEventPublisher, BreakerOpeningGroups],
})
export class GatewayEventsModule {}
