import type { BreakerKind } from './resilience-status.types';

/**
 * Gateway events for the event layer, shaped like decision 24's webhook body so the event layer
 * can deliver them as they are: `{id, type, createdAt, data}`.
 */
export interface GatewayEventEnvelope<T extends string, D> {
  /** Unique per event (a delivery deduplicates on it). */
  id: string;
  type: T;
  /** ISO 8601. */
  createdAt: string;
  data: D;
}

/** Spec 6.3/6.4: a breaker changed to OPEN on one data plane (a manual trip on N data planes is N events). */
export type CircuitBreakerOpenedEvent = GatewayEventEnvelope<
  'circuit_breaker.opened',
  {
    /** `route:<routeId>` or the upstream's name. */
    breaker: string;
    kind: BreakerKind;
    /** Routes served through the breaker. */
    routeIds: string[];
    reason: 'failures' | 'half-open-failure' | 'manual';
    /** The data plane whose breaker opened. */
    instanceId: string;
  }
>;

export type GatewayEvent = CircuitBreakerOpenedEvent;
export type GatewayEventType = GatewayEvent['type'];

/** Where data planes publish gateway events; the event layer subscribes. */
export const EVENTS_CHANNEL = 'gateway:events';
