import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { GATEWAY_EVENT, gatewayEventName, type AnyGatewayEvent } from './gateway-event';

/** The one way control-plane code raises a gateway event (detectors, runbooks, webhooks themselves). */
@Injectable()
export class GatewayEventPublisher {
  constructor(private readonly emitter: EventEmitter2) {}

  publish(type: string, data: Record<string, unknown>): AnyGatewayEvent {
    const event: AnyGatewayEvent = { id: `evt_${randomUUID()}`, type, createdAt: new Date().toISOString(), data };
    this.forward(event);
    return event;
  }

  /** An event that already has its id (one heard on the bus): passed on unchanged, so consumers dedupe on it. */
  forward(event: AnyGatewayEvent): void {
    this.emitter.emit(GATEWAY_EVENT, event);
    this.emitter.emit(gatewayEventName(event.type), event);
  }
}
