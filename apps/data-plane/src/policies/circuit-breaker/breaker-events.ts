import type { BreakerKind, BreakerStatus } from '@gateway/events';
import type { GaugeDefinition } from '../../engine/ports';
import { serviceKey } from '../../engine/service-registry';

/** A breaker that changed to OPEN (the event layer publishes `circuit_breaker.opened`). */
export interface BreakerOpenedEvent {
  breaker: string;
  kind: BreakerKind;
  /** Routes served through the breaker. */
  routeIds: string[];
  reason: 'failures' | 'half-open-failure' | 'manual';
  at: string;
}

/** Outward notifications of the breakers; the composition root implements them (cluster bus, options hook). */
export interface ResilienceEvents {
  breakerOpened(event: BreakerOpenedEvent): void;
}

export const RESILIENCE_EVENTS = serviceKey<ResilienceEvents>('circuitBreaker.events');

/** Numeric values of the state gauge. */
export const BREAKER_STATE_VALUES: Record<BreakerStatus['state'], number> = { CLOSED: 0, HALF_OPEN: 1, OPEN: 2 };

/**
 * Read at scrape time: a breaker reaches HALF_OPEN by time alone, so a value pushed on transitions
 * would lag; it also says what /health/deep says and forgets removed breakers.
 */
export const BREAKER_STATE_GAUGE: GaugeDefinition = {
  name: 'gateway_circuit_breaker_state',
  help: 'Circuit breaker state: 0 CLOSED, 1 HALF_OPEN, 2 OPEN; breaker is a route id (route:<id>) or an upstream name',
  labelNames: ['breaker', 'kind'],
};
