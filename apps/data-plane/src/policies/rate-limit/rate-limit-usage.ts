import type { EngineServices, PolicyStateKey, RateLimitStore, UsageDelta } from '../../engine/ports';

/** Counts of one key (or of a whole route). */
export interface KeyUsage {
  key: string;
  hits: number;
  rejections: number;
}

/** What `usage(routeId)` answers. */
export interface RateLimitUsage {
  routeId: string;
  /** Requests counted and let through. */
  hits: number;
  /** Requests answered 429. */
  rejections: number;
  /** Up to 10 keys with the most requests (hits + rejections), busiest first. */
  busiestKeys: KeyUsage[];
  /** `local`: this data plane since it started (or the route appeared); `cluster`: every data plane on the shared store. */
  scope: 'local' | 'cluster';
  since: string | null;
}

const MAX_TRACKED_KEYS = 1000;
const BUSIEST = 10;
/** How often counts go to a shared store (off the request path). */
const PUBLISH_INTERVAL_MS = 2000;

class RouteUsage {
  hits = 0;
  rejections = 0;
  readonly since = new Date().toISOString();
  readonly keys = new Map<string, KeyUsage>();
  /** Counts not yet published to a shared store (only kept when there is one). */
  private pending: UsageDelta | undefined;
  private pendingKeys = new Map<string, [number, number]>();

  constructor(private readonly shared: boolean) {}

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
    if (this.shared) {
      this.pending ??= { hits: 0, rejections: 0, keys: [] };
      if (allowed) this.pending.hits += 1;
      else this.pending.rejections += 1;
      let counts = this.pendingKeys.get(key);
      if (counts === undefined && this.pendingKeys.size < MAX_TRACKED_KEYS) {
        counts = [0, 0];
        this.pendingKeys.set(key, counts);
      }
      if (counts !== undefined) counts[allowed ? 0 : 1] += 1;
    }
  }

  /** Takes the counts since the last report. */
  takeDelta(): UsageDelta | undefined {
    const delta = this.pending;
    if (delta === undefined) return undefined;
    for (const [key, [hits, rejections]] of this.pendingKeys) delta.keys.push([key, hits, rejections]);
    this.pending = undefined;
    this.pendingKeys = new Map();
    return delta;
  }
}

/**
 * Per-route rate-limit usage. Always counted in this data plane; with a shared store (Redis) the
 * counts are also published every 2 s, so `clusterUsage()` can answer for every data plane.
 */
export class RateLimitUsageRegistry {
  private readonly routes = new Map<string, RouteUsage>();
  private readonly store: RateLimitStore;
  private readonly publisher: NodeJS.Timeout | undefined;

  constructor(services: Pick<EngineServices, 'rateLimitStore' | 'logger'>) {
    this.store = services.rateLimitStore;
    if (this.store.publishUsage !== undefined) {
      this.publisher = setInterval(() => void this.publish().catch((error: unknown) => services.logger.debug({ err: String(error) }, 'rate-limit usage not published')), PUBLISH_INTERVAL_MS);
      this.publisher.unref();
    }
  }

  forRoute(routeId: string): RouteUsage {
    let usage = this.routes.get(routeId);
    if (usage === undefined) {
      usage = new RouteUsage(this.publisher !== undefined);
      this.routes.set(routeId, usage);
    }
    return usage;
  }

  /** This data plane's counts; undefined when the route has no active rate limit. */
  usage(routeId: string): RateLimitUsage | undefined {
    const usage = this.routes.get(routeId);
    if (usage === undefined) return undefined;
    const busiestKeys = [...usage.keys.values()]
      .sort((a, b) => b.hits + b.rejections - (a.hits + a.rejections))
      .slice(0, BUSIEST)
      .map((k) => ({ ...k }));
    return { routeId, hits: usage.hits, rejections: usage.rejections, busiestKeys, scope: 'local', since: usage.since };
  }

  /** Every data plane's counts when the store is shared (after publishing ours), else `usage()`. */
  async clusterUsage(routeId: string): Promise<RateLimitUsage | undefined> {
    if (!this.routes.has(routeId)) return undefined;
    if (this.store.readUsage === undefined) return this.usage(routeId);
    try {
      await this.publish();
      const totals = await this.store.readUsage(routeId, BUSIEST);
      return { routeId, ...totals, scope: 'cluster', since: null };
    } catch {
      // The shared store is unavailable: this data plane's own counts are the best answer.
      return this.usage(routeId);
    }
  }

  /** Sends pending counts to the shared store; best effort (counts of a failed report are lost). */
  async publish(): Promise<void> {
    const publishUsage = this.store.publishUsage;
    if (publishUsage === undefined) return;
    const reports: Array<Promise<void>> = [];
    for (const [routeId, usage] of this.routes) {
      const delta = usage.takeDelta();
      if (delta !== undefined) reports.push(publishUsage.call(this.store, routeId, delta));
    }
    await Promise.all(reports);
  }

  retain(routeIds: ReadonlySet<string>): void {
    for (const id of this.routes.keys()) if (!routeIds.has(id)) this.routes.delete(id);
  }

  close(): void {
    clearInterval(this.publisher);
  }
}

export const RATE_LIMIT_USAGE: PolicyStateKey<RateLimitUsageRegistry> = {
  name: 'rate-limit-usage',
  create: (services) => new RateLimitUsageRegistry(services),
};
