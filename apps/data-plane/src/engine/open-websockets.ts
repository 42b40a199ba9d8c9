import type { RouteTable } from './route-table';
import type { WebSocketConnection } from './websocket-connection';

/**
 * The WebSocket connections this data plane relays, per route: the per-route limit counts them
 * (handshakes under way included), the metric reads them, and a reload or a drain ends them.
 */
export class OpenWebSockets {
  private readonly open = new Map<string, Set<WebSocketConnection>>();
  /** Handshakes sent upstream and not answered yet, per route: they hold a place under the limit. */
  private readonly pending = new Map<string, number>();
  /** The live table (unset before the first). */
  private table: RouteTable | undefined;
  /**
   * Ids of the live table's routes that accept WebSockets, gathered when first needed: a swap
   * (a route changed through the control plane) must not walk 10,000 routes for none open.
   */
  private live: ReadonlySet<string> | undefined;
  /** Set by endAll (a drain): no connection is kept, later ones neither. */
  private endingAll = false;

  /** Takes a place for a handshake on `routeId`; false when the route has `max` already. */
  reserve(routeId: string, max: number): boolean {
    const pending = this.pending.get(routeId) ?? 0;
    if (pending + (this.open.get(routeId)?.size ?? 0) >= max) return false;
    this.pending.set(routeId, pending + 1);
    return true;
  }

  /** Gives a reserved place back (the handshake failed or was refused upstream). */
  release(routeId: string): void {
    const pending = (this.pending.get(routeId) ?? 1) - 1;
    if (pending > 0) this.pending.set(routeId, pending);
    else this.pending.delete(routeId);
  }

  /** Turns a reserved place into an open connection; one whose route left the table meanwhile is ended at once. */
  add(connection: WebSocketConnection): void {
    this.release(connection.routeId);
    let set = this.open.get(connection.routeId);
    if (set === undefined) this.open.set(connection.routeId, (set = new Set()));
    set.add(connection);
    if (!this.accepts(connection.routeId)) connection.goAway();
  }

  private accepts(routeId: string): boolean {
    if (this.endingAll) return false;
    if (this.table === undefined) return true;
    this.live ??= new Set(this.table.routes.filter((r) => r.route.websocket?.enabled === true).map((r) => r.id));
    return this.live.has(routeId);
  }

  remove(connection: WebSocketConnection): void {
    const set = this.open.get(connection.routeId);
    if (set === undefined) return;
    set.delete(connection);
    if (set.size === 0) this.open.delete(connection.routeId);
  }

  /** Open connections per route id (the metric). */
  counts(): Map<string, number> {
    return new Map([...this.open].map(([routeId, set]) => [routeId, set.size]));
  }

  get size(): number {
    let total = 0;
    for (const set of this.open.values()) total += set.size;
    return total;
  }

  /**
   * After a reload: connections of routes that are gone, disabled or no longer accept WebSockets
   * are ended (1001); the others are kept, whatever else changed in their route.
   */
  retain(table: RouteTable): number {
    this.table = table;
    this.live = undefined;
    this.endingAll = false;
    let ended = 0;
    for (const [routeId, set] of this.open) {
      if (this.accepts(routeId)) continue;
      for (const connection of set) connection.goAway();
      ended += set.size;
    }
    return ended;
  }

  /** Drain: every connection ends (1001); returns how many. */
  endAll(): number {
    this.endingAll = true;
    let ended = 0;
    for (const set of this.open.values()) {
      for (const connection of set) connection.goAway();
      ended += set.size;
    }
    return ended;
  }
}
