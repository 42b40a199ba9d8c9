import type { BreakerRecord, RouteBreakerView } from '@gateway/events';
import type { EngineServices, GaugeReading, PolicyStateKey } from '../../engine/ports';
import { eachInChunks } from '../../engine/time-slices';
import { BREAKER_STATE_GAUGE, BREAKER_STATE_VALUES, RESILIENCE_EVENTS, type BreakerOpenedEvent, type ResilienceEvents } from './breaker-events';
import { CircuitBreaker, type BreakerListener, type BreakerSettings, type BreakerState } from './circuit-breaker';

/** Name of a route's own breaker (upstream breakers are named after the upstream). */
export function routeBreakerName(routeId: string): string {
  return `route:${routeId}`;
}

/**
 * Every breaker of this data plane, keyed by route id or upstream name so its state survives
 * reloads. The control plane drives manual Trip/Reset and reads statuses through `trip`, `reset`,
 * `status` and `all` (applied on every data plane by its bus handler).
 */
export class BreakerRegistry implements BreakerListener {
  private readonly breakers = new Map<string, CircuitBreaker>();
  /** Each breaker's gauge labels, made once (see gaugeValues). */
  private readonly gaugeLabels = new WeakMap<CircuitBreaker, readonly string[]>();
  /** Route id -> the breakers its traffic passes, its own first. */
  private readonly routes = new Map<string, string[]>();

  private readonly events: ResilienceEvents;

  constructor(private readonly services: EngineServices) {
    this.events = services.provided.get(RESILIENCE_EVENTS);
    services.metrics.gauge(BREAKER_STATE_GAUGE, () => this.gaugeValues());
  }

  /** The breaker `name` with these settings; an existing one keeps its state. */
  ensure(name: string, settings: BreakerSettings): CircuitBreaker {
    let breaker = this.breakers.get(name);
    if (breaker === undefined) {
      breaker = new CircuitBreaker(name, settings, this);
      this.breakers.set(name, breaker);
      const registered = breaker;
      this.services.health.registerBreaker(name, () => registered.status());
    } else {
      breaker.settings = settings;
    }
    return breaker;
  }

  bindRoute(routeId: string, names: string[]): void {
    this.routes.set(routeId, names);
  }

  /** Manual Trip (spec 3.1, any state -> OPEN), held until `holdUntilMs` when set. Undefined when the route has no breaker. */
  trip(routeId: string, holdUntilMs?: number): RouteBreakerView | undefined {
    this.primary(routeId)?.trip(holdUntilMs);
    return this.status(routeId);
  }

  /** Manual Reset (spec 3.1, any state -> CLOSED). */
  reset(routeId: string): RouteBreakerView | undefined {
    this.primary(routeId)?.reset();
    return this.status(routeId);
  }

  /** The status record of spec 2.7 for the route's breaker (its own, else its upstream's), with its name and kind. */
  status(routeId: string): RouteBreakerView | undefined {
    const breaker = this.primary(routeId);
    return breaker === undefined ? undefined : { name: breaker.name, kind: breaker.settings.kind, ...breaker.status() };
  }

  byName(name: string): CircuitBreaker | undefined {
    return this.breakers.get(name);
  }

  all(): BreakerRecord[] {
    return [...this.breakers.values()].map((b) => ({ name: b.name, kind: b.settings.kind, routeIds: this.routesOf(b.name), ...b.status() }));
  }

  /** Forgets which breakers a route passes (a release told that the route went, see PolicyFactory.release). */
  unbindRoute(routeId: string): void {
    this.routes.delete(routeId);
  }

  /** Forgets one breaker (a release told that no route has it any more). */
  drop(name: string): void {
    if (!this.breakers.delete(name)) return;
    this.services.health.unregisterBreaker(name);
  }

  /** Forgets breakers and routes the live configuration no longer has, a chunk a step (see PolicyFactory.retain). */
  *retainSteps(routeIds: ReadonlySet<string>, names: ReadonlySet<string>): Generator<void, void, void> {
    yield* eachInChunks(this.routes.keys(), (id) => {
      if (!routeIds.has(id)) this.routes.delete(id);
    });
    yield* eachInChunks(this.breakers.keys(), (name) => {
      if (!names.has(name)) this.drop(name);
    });
  }

  changed(breaker: CircuitBreaker, from: BreakerState, reason: BreakerOpenedEvent['reason']): void {
    const { kind } = breaker.settings;
    this.services.logger.warn({ breaker: breaker.name, from, to: breaker.state, reason: breaker.state === 'OPEN' ? reason : undefined }, 'circuit breaker changed state');
    if (breaker.state !== 'OPEN') return;
    try {
      this.events.breakerOpened({ breaker: breaker.name, kind, routeIds: this.routesOf(breaker.name), reason, at: new Date().toISOString() });
    } catch (error) {
      this.services.logger.error({ err: String(error) }, 'breakerOpened listener failed');
    }
  }

  /** The same labels array for a breaker on every scrape: the metrics adapter writes its line prefix once by it. */
  private *gaugeValues(): Iterable<GaugeReading> {
    for (const b of this.breakers.values()) {
      let labels = this.gaugeLabels.get(b);
      // A reload may change a breaker's kind in place (ensure): then its labels are made again.
      if (labels === undefined || labels[1] !== b.settings.kind) {
        labels = [b.name, b.settings.kind];
        this.gaugeLabels.set(b, labels);
      }
      yield { labels, value: BREAKER_STATE_VALUES[b.observedState()] };
    }
  }

  private primary(routeId: string): CircuitBreaker | undefined {
    const name = this.routes.get(routeId)?.[0];
    return name === undefined ? undefined : this.breakers.get(name);
  }

  private routesOf(name: string): string[] {
    const ids: string[] = [];
    for (const [id, names] of this.routes) if (names.includes(name)) ids.push(id);
    return ids;
  }
}

export const BREAKERS: PolicyStateKey<BreakerRegistry> = {
  name: 'circuit-breakers',
  create: (services) => new BreakerRegistry(services),
};
