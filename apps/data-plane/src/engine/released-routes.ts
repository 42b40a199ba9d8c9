import type { Route, RouteDiff } from '@gateway/route-model';
import type { ReleasedRoutes } from './policy';

/**
 * Past this many ids touched, a release walks everything instead (`retain`): told about most of
 * a table, a release does as much as a walk, and what is pending stays bounded.
 */
const MAX_TRACKED = 2048;

function enabledOnly(route: Route | undefined): Route | undefined {
  return route?.enabled === true ? route : undefined;
}

/**
 * What a release still has to let go of, gathered from the diffs of every swap since the last
 * release that finished (a burst of reloads or change messages releases once, see
 * ConfigReloader.releaseLater). A swap that is not only routes removed or changed (start-up,
 * other upstreams, a rotated CA file) asks for a full walk instead (`retain`).
 */
export class PendingRelease {
  private gone: Route[] = [];
  /** The latest definition of each id a diff touched (undefined: removed): what the live configuration has under it. */
  private latest = new Map<string, Route | undefined>();
  private full = false;
  /** What the pass running now took (see take): its ids are still watched for additions. */
  private inPass: ReadonlyMap<string, Route | undefined> | undefined;

  /** Adds a swap's diff; `full`: the swap changed more than routes. */
  add(diff: RouteDiff, full: boolean): void {
    if (full) this.full = true;
    if (this.full) return;
    for (const route of diff.removed) {
      this.gone.push(route);
      this.latest.set(route.id, undefined);
    }
    for (const { before, after } of diff.changed) {
      this.gone.push(before);
      this.latest.set(after.id, after);
    }
    // A route removed by an earlier swap (pending, or taken by a pass still running) and added again is live again.
    for (const route of diff.added) if (this.latest.has(route.id) || this.inPass?.has(route.id) === true) this.latest.set(route.id, route);
    if (this.latest.size > MAX_TRACKED) this.goFull();
  }

  private goFull(): void {
    this.full = true;
    this.gone = [];
    this.latest.clear();
  }

  /**
   * Takes what is pending for a release pass: 'full', or the routes to release (undefined when
   * nothing is), and starts over. The pass ends with `settle`.
   */
  take(): 'full' | ReleasedRoutes | undefined {
    const { gone, latest, full } = this;
    this.gone = [];
    this.latest = new Map();
    this.full = false;
    if (full) return 'full';
    if (gone.length === 0) return undefined;
    this.inPass = latest;
    const current = (id: string): Route | undefined => latest.get(id);
    return { gone, current, live: (id) => enabledOnly(current(id)) };
  }

  /** Ends the pass that took `taken`: a pass that did not finish gives it back, older than whatever swaps added meanwhile. */
  settle(taken: 'full' | ReleasedRoutes | undefined, finished: boolean): void {
    this.inPass = undefined;
    if (!finished) this.restore(taken);
  }

  private restore(taken: 'full' | ReleasedRoutes | undefined): void {
    if (taken === undefined) return;
    if (taken === 'full') {
      this.goFull();
      return;
    }
    if (this.full) return;
    const later = this.latest;
    this.latest = new Map();
    for (const route of taken.gone) if (!this.latest.has(route.id)) this.latest.set(route.id, taken.current(route.id));
    for (const [id, route] of later) this.latest.set(id, route);
    this.gone = [...taken.gone, ...this.gone];
    if (this.latest.size > MAX_TRACKED) this.goFull();
  }
}
