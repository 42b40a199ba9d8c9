import type { RouteWindow, UpstreamWindow } from '@gateway/events';
import { eachInChunks } from '../../engine/time-slices';
import { TrafficTally } from './traffic-tally';

/**
 * This data plane's tallies for the current telemetry window, by route id and by upstream. The
 * telemetry policy takes its two tallies when a route compiles (no lookup per request); the
 * publisher takes the windows once a second. Tallies survive reloads, keyed like other policy state.
 */
export class TelemetryRegistry {
  private readonly routes = new Map<string, TrafficTally>();
  private readonly upstreams = new Map<string, TrafficTally>();

  forRoute(routeId: string): TrafficTally {
    return tallyOf(this.routes, routeId);
  }

  forUpstream(name: string): TrafficTally {
    return tallyOf(this.upstreams, name);
  }

  /** The windows of routes and upstreams that had traffic since the last call; every tally starts over. */
  take(): { routes: RouteWindow[]; upstreams: UpstreamWindow[] } {
    const routes: RouteWindow[] = [];
    for (const [routeId, tally] of this.routes) if (tally.requests > 0) routes.push({ routeId, ...tally.take() });
    const upstreams: UpstreamWindow[] = [];
    for (const [upstream, tally] of this.upstreams) if (tally.requests > 0) upstreams.push({ upstream, ...tally.take() });
    return { routes, upstreams };
  }

  /** Forgets one route's tally (a release told that the route went, see PolicyFactory.release). */
  forgetRoute(routeId: string): void {
    this.routes.delete(routeId);
  }

  /** Whether an upstream has a tally (made when a route to it compiled). */
  hasUpstream(name: string): boolean {
    return this.upstreams.has(name);
  }

  /** Forgets routes and upstreams the live configuration no longer has, a chunk a step (see PolicyFactory.retain). */
  *retainSteps(routeIds: ReadonlySet<string>, upstreams: ReadonlySet<string>): Generator<void, void, void> {
    yield* eachInChunks(this.routes.keys(), (id) => {
      if (!routeIds.has(id)) this.routes.delete(id);
    });
    yield* eachInChunks(this.upstreams.keys(), (name) => {
      if (!upstreams.has(name)) this.upstreams.delete(name);
    });
  }
}

function tallyOf(tallies: Map<string, TrafficTally>, key: string): TrafficTally {
  let tally = tallies.get(key);
  if (tally === undefined) {
    tally = new TrafficTally();
    tallies.set(key, tally);
  }
  return tally;
}
