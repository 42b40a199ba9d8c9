import type { KeyUsage, RateLimitUsage } from '@gateway/events';
import type { PolicyStateKey } from '../../engine/ports';

const MAX_TRACKED_KEYS = 1000;
/** Keys `usage()` lists unless asked for more. */
const BUSIEST = 10;

class RouteUsage {
  hits = 0;
  rejections = 0;
  readonly since = new Date().toISOString();
  readonly keys = new Map<string, KeyUsage>();

  count(key: string, allowed: boolean): void {
    if (allowed) this.hits += 1;
    else this.rejections += 1;
    let entry = this.keys.get(key);
    if (entry === undefined) {
      // Bounded: a flood of distinct keys forgets the least recently added ones.
      if (this.keys.size >= MAX_TRACKED_KEYS) this.keys.delete(this.keys.keys().next().value as string);
      entry = { key, hits: 0, rejections: 0 };
      this.keys.set(key, entry);
    }
    if (allowed) entry.hits += 1;
    else entry.rejections += 1;
  }
}

/**
 * Per-route rate-limit usage of this data plane. The control plane sums the data planes' answers
 * to its `status-query` command (docs/resilience.md), so nothing here is shared or reported.
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
    const busiestKeys = [...usage.keys.values()]
      .sort((a, b) => b.hits + b.rejections - (a.hits + a.rejections))
      .slice(0, Math.max(0, Math.min(top, MAX_TRACKED_KEYS)))
      .map((k) => ({ ...k }));
    return { routeId, hits: usage.hits, rejections: usage.rejections, busiestKeys, since: usage.since };
  }

  retain(routeIds: ReadonlySet<string>): void {
    for (const id of this.routes.keys()) if (!routeIds.has(id)) this.routes.delete(id);
  }
}

export const RATE_LIMIT_USAGE: PolicyStateKey<RateLimitUsageRegistry> = {
  name: 'rate-limit-usage',
  create: () => new RateLimitUsageRegistry(),
};
