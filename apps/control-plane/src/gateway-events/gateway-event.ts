import type { GatewayEventEnvelope } from '@gateway/events';

/**
 * The in-process event name every gateway event travels under (@nestjs/event-emitter): one name,
 * the kind in the envelope's `type`, so a consumer (webhooks, runbooks) sees every kind and
 * filters itself. Emit through GatewayEventPublisher, which fills `id` and `createdAt`.
 */
export const GATEWAY_EVENT = 'gateway.event';

/** Every gateway event is emitted a second time under this name plus its kind, for listeners of one kind (OnGatewayEvent). */
export function gatewayEventName(kind: string): string {
  return `${GATEWAY_EVENT}:${kind}`;
}

/** An event already delivered to listeners whose `data` grew afterwards (a grouped breaker opening's late instanceIds). */
export const GATEWAY_EVENT_UPDATED = 'gateway.event-updated';

export type AnyGatewayEvent = GatewayEventEnvelope<string, Record<string, unknown>>;

/** An envelope from outside the process (the bus) with the fields a consumer relies on, or undefined. */
export function asGatewayEvent(message: unknown): AnyGatewayEvent | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const { id, type, createdAt, data } = message as Record<string, unknown>;
  if (typeof id !== 'string' || id === '' || id.length > 64) return undefined;
  if (typeof type !== 'string' || !/^[A-Za-z0-9_.-]{1,100}$/.test(type)) return undefined;
  if (typeof createdAt !== 'string' || Number.isNaN(Date.parse(createdAt))) return undefined;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined;
  return { id, type, createdAt, data: data as Record<string, unknown> };
}
