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
  /**
   * Route id -> the upstream its compiled route counts under, and upstream -> how many compiled
   * routes count there: a release told that a route went drops the upstream's tally with its last
   * route, without walking every route to find out (PolicyFactory.release).
   */
  private readonly boundTo = new Map<string, string>();
  private readonly boundRoutes = new Map<string, number>();

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

  /** The tallies a route compiles with, its own and its upstream's; the route is counted as one of the upstream's. */
  forCompiledRoute(routeId: string, upstream: string): { route: TrafficTally; upstream: TrafficTally } {
    if (this.boundTo.get(routeId) !== upstream) {
      this.unbind(routeId);
      this.boundTo.set(routeId, upstream);
      this.boundRoutes.set(upstream, (this.boundRoutes.get(upstream) ?? 0) + 1);
    }
    return { route: this.forRoute(routeId), upstream: this.forUpstream(upstream) };
  }

  /**
   * A release told that a route left `upstream` (`removed`: the route went, its own tally with
   * it): the upstream's tally goes when no compiled route counts there any more. What requests
   * of the old route still in flight count there after that is not published, as for a removed
   * route's own tally.
   */
  leave(routeId: string, upstream: string, removed: boolean): void {
    if (removed) {
      this.routes.delete(routeId);
      this.unbind(routeId);
    } else if (this.boundTo.get(routeId) === upstream) {
      this.unbind(routeId);
    }
    if (!this.boundRoutes.has(upstream)) this.upstreams.delete(upstream);
  }

  private unbind(routeId: string): void {
    const upstream = this.boundTo.get(routeId);
    if (upstream === undefined) return;
    this.boundTo.delete(routeId);
    const left = (this.boundRoutes.get(upstream) ?? 1) - 1;
    if (left === 0) this.boundRoutes.delete(upstream);
    else this.boundRoutes.set(upstream, left);
  }

  /** Whether a route has a tally (made when it compiled). */
  hasRoute(routeId: string): boolean {
    return this.routes.has(routeId);
  }

  /** Whether an upstream has a tally (made when a route to it compiled). */
  hasUpstream(name: string): boolean {
    return this.upstreams.has(name);
  }

  /** Forgets routes and upstreams the live configuration no longer has, a chunk a step (see PolicyFactory.retain). */
  *retainSteps(routeIds: ReadonlySet<string>, upstreams: ReadonlySet<string>): Generator<void, void, void> {
    yield* eachInChunks(this.routes.keys(), (id) => {
      if (routeIds.has(id)) return;
      this.routes.delete(id);
      this.unbind(id);
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
