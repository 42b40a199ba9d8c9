import { OnEvent } from '@nestjs/event-emitter';
import { GATEWAY_EVENT, gatewayEventName } from './gateway-event';

/**
 * Listens to gateway events of one kind (`ERROR_RATE_SPIKE`, `circuit_breaker.opened`) or of every
 * kind with `*` (dotted kinds included), through @nestjs/event-emitter (spec 6.1: listeners per
 * kind or wildcard). The handler gets the envelope `{id, type, createdAt, data}`; it runs async,
 * so a slow or failing listener never holds up the publisher.
 */
export function OnGatewayEvent(kind: string): MethodDecorator {
  return OnEvent(kind === '*' ? GATEWAY_EVENT : gatewayEventName(kind), { async: true, suppressErrors: true });
}
