import { Module } from '@nestjs/common';
import { BusEventsBridge } from './bus-events.bridge';
import { GatewayEventPublisher } from './gateway-event-publisher.service';

/** Gateway events inside the control plane: the publisher, and the bridge from the data planes' bus channel. */
@Module({
  providers: [GatewayEventPublisher, BusEventsBridge],
  exports: [GatewayEventPublisher],
})
export class GatewayEventsModule {}
