import type { RateLimitUsage, TopKeyWire } from '@gateway/events';
import { TopKeys } from '@gateway/events/data-plane';
import type { PolicyStateKey } from '../../engine/ports';
import { eachInChunks } from '../../engine/time-slices';

/** Keys the since-start sketch keeps (what GET .../rate-limit can list). */
const MAX_TRACKED_KEYS = 1000;
/** Keys each telemetry window keeps: its top-K is cut to TELEMETRY_TOP_KEYS when published. */
const WINDOW_TRACKED_KEYS = 64;
/** Keys a telemetry window lists per route (docs/telemetry.md). */
export const TELEMETRY_TOP_KEYS = 10;
/** Keys `usage()` lists unless asked for more. */
const BUSIEST = 10;

/**
 * One rate-limited route's counts. Its heaviest keys come from Space-Saving sketches (TopKeys,
 * libs/events): one since the route started counting, for GET .../rate-limit, and one per
 * telemetry window, so the endpoint and the cluster telemetry read one mechanism (issue 12).
 */
class RouteUsage {
  hits = 0;
  rejections = 0;
  readonly since = new Date().toISOString();
  readonly keys = new TopKeys(MAX_TRACKED_KEYS);
  readonly windowKeys = new TopKeys(WINDOW_TRACKED_KEYS);

  count(key: string, allowed: boolean): void {
    if (allowed) this.hits += 1;
    else this.rejections += 1;
    this.keys.observe(key, !allowed);
    this.windowKeys.observe(key, !allowed);
  }

  /** The window's heaviest keys, then a fresh window; undefined when the window saw none. */
  takeWindowKeys(): TopKeyWire[] | undefined {
    if (this.windowKeys.total === 0) return undefined;
    const top = this.windowKeys.top(TELEMETRY_TOP_KEYS);
    this.windowKeys.reset();
    return top;
  }
}

/**
 * Per-route rate-limit usage of this data plane. The control plane sums the data planes' answers
 * to its `status-query` command (docs/resilience.md); the per-window keys go out with telemetry.
 */
export class RateLimitUsageRegistry {
  private readonly routes = new Map<string, RouteUsage>();

  forRoute(routeId: string): RouteUsage {
    let usage = this.routes.get(routeId);
    if (usage === undefined) {
      usage = new RouteUsage();
      this.routes.set(routeId, usage);
    }
    return usage;
  }

  /** This data plane's counts with its `top` busiest keys; undefined when the route has no active rate limit. */
  usage(routeId: string, top = BUSIEST): RateLimitUsage | undefined {
    const usage = this.routes.get(routeId);
    if (usage === undefined) return undefined;
    const busiestKeys = usage.keys
      .top(Math.max(0, Math.min(top, MAX_TRACKED_KEYS)))
      .map((k) => ({ key: k.key, hits: k.count - k.rejections, rejections: k.rejections }));
    return { routeId, hits: usage.hits, rejections: usage.rejections, busiestKeys, since: usage.since };
  }

  /** The telemetry window's heaviest keys of a route (see RouteUsage.takeWindowKeys). */
  takeWindowKeys(routeId: string): TopKeyWire[] | undefined {
    return this.routes.get(routeId)?.takeWindowKeys();
  }

  /** Forgets one route's usage (a release told that its limit went, see PolicyFactory.release). */
  forget(routeId: string): void {
    this.routes.delete(routeId);
  }

  /** Forgets the usage of routes the live configuration no longer limits, a chunk a step (see PolicyFactory.retain). */
  *retainSteps(routeIds: ReadonlySet<string>): Generator<void, void, void> {
    yield* eachInChunks(this.routes.keys(), (id) => {
      if (!routeIds.has(id)) this.routes.delete(id);
    });
  }
}

export const RATE_LIMIT_USAGE: PolicyStateKey<RateLimitUsageRegistry> = {
  name: 'rate-limit-usage',
  create: () => new RateLimitUsageRegistry(),
};
