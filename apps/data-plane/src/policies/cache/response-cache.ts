import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';

/** One stored upstream response. */
export interface CacheEntry {
  readonly status: number;
  /** End-to-end headers only (hop-by-hop never reach the cache). */
  readonly headers: OutgoingHttpHeaders;
  readonly body: Buffer;
  /** ms (cache clock) when stored. */
  readonly storedAt: number;
  /** ms (cache clock) until which the entry is fresh; after it, stale. */
  readonly expiresAt: number;
  /**
   * ms (cache clock) until which the stale entry is kept: to be revalidated (it has a validator),
   * served while refreshing (stale-while-revalidate) or when the upstream fails (stale-if-error).
   */
  readonly keepUntil: number;
  /** Never served stale; a failed revalidation answers 504 (RFC 9111 5.2.2.2). */
  readonly mustRevalidate: boolean;
  /** The normalized request path it answered: unsafe requests to that path invalidate it. */
  readonly path: string;
  /** Age the upstream reported, seconds. */
  readonly upstreamAge: number;
  /** Request header values the upstream's `Vary` named, as seen when stored. */
  readonly vary: ReadonlyArray<readonly [string, string | undefined]> | undefined;
  readonly size: number;
}

export interface ResponseCacheOptions {
  /** Total bytes kept (bodies plus an estimate of headers and keys). Default 100 MiB. */
  maxBytes?: number;
  /** Largest single entry. Default 10 MB (spec 8). */
  maxEntryBytes?: number;
  /** Clock in ms (tests inject one). */
  now?: () => number;
}

interface Slot {
  routeId: string;
  entry: CacheEntry;
}

/** A miss in progress: followers for the same key wait for it instead of calling the upstream. */
interface Flight {
  /** The normalized request path the flight fetches. */
  path: string;
  waiters: Array<(stored: boolean) => void>;
  /** An unsafe request to the path succeeded meanwhile: what the flight brings back may predate it. */
  invalidated: boolean;
}

export const DEFAULT_CACHE_MAX_BYTES = 100 * 1024 * 1024;
/** Spec 8: "Cache entry size 10 MB". */
export const DEFAULT_CACHE_MAX_ENTRY_BYTES = 10 * 1024 * 1024;

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * In-memory LRU of upstream responses bounded in bytes (per entry and in total), keyed by route id
 * plus the request key, shared by every route table of one data plane: entries survive a reload
 * and are dropped when the route's configuration changes or on `purge(routeId)`.
 */
export class ResponseCache {
  readonly maxBytes: number;
  readonly maxEntryBytes: number;
  readonly now: () => number;
  private readonly slots = new Map<string, Slot>();
  private readonly byRoute = new Map<string, Set<string>>();
  private readonly byPath = new Map<string, Set<string>>();
  private readonly fingerprints = new Map<string, string>();
  private readonly flights = new Map<string, Flight>();
  private bytes = 0;

  constructor(options: ResponseCacheOptions = {}) {
    this.maxBytes = options.maxBytes ?? DEFAULT_CACHE_MAX_BYTES;
    this.maxEntryBytes = Math.min(options.maxEntryBytes ?? DEFAULT_CACHE_MAX_ENTRY_BYTES, this.maxBytes);
    this.now = options.now ?? Date.now;
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.slots.size, bytes: this.bytes };
  }

  /**
   * The entry whose Vary'd request headers match, fresh or stale (compare `expiresAt` with `now()`),
   * or undefined; an entry past `keepUntil` is dropped. A hit becomes most recent.
   */
  get(key: string, requestHeaders: IncomingHttpHeaders): CacheEntry | undefined {
    const slot = this.slots.get(key);
    if (slot === undefined) return undefined;
    const entry = slot.entry;
    if (entry.keepUntil <= this.now()) {
      this.remove(key, slot);
      return undefined;
    }
    if (entry.vary !== undefined) {
      for (const [name, value] of entry.vary) if (headerValue(requestHeaders[name]) !== value) return undefined;
    }
    this.slots.delete(key);
    this.slots.set(key, slot);
    return entry;
  }

  /**
   * Stores an entry (replacing the key's previous one); false when it is larger than one entry may
   * be, or when the key's flight was invalidated by an unsafe request while it was in the air.
   */
  set(routeId: string, key: string, entry: CacheEntry): boolean {
    if (entry.size > this.maxEntryBytes || this.flights.get(key)?.invalidated === true) return false;
    const previous = this.slots.get(key);
    if (previous !== undefined) this.remove(key, previous);
    this.slots.set(key, { routeId, entry });
    this.bytes += entry.size;
    let keys = this.byRoute.get(routeId);
    if (keys === undefined) this.byRoute.set(routeId, (keys = new Set()));
    keys.add(key);
    let sameTarget = this.byPath.get(entry.path);
    if (sameTarget === undefined) this.byPath.set(entry.path, (sameTarget = new Set()));
    sameTarget.add(key);
    for (const [oldest, slot] of this.slots) {
      if (this.bytes <= this.maxBytes) break;
      this.remove(oldest, slot);
    }
    return true;
  }

  /** Drops every entry of a route; returns how many. The control plane's cache purge calls this. */
  purge(routeId: string): number {
    const removed = this.removeAll(this.byRoute.get(routeId));
    this.byRoute.delete(routeId);
    return removed;
  }

  /** True while `entry` is the one stored under `key` (not replaced, invalidated, purged or evicted). */
  holds(key: string, entry: CacheEntry): boolean {
    return this.slots.get(key)?.entry === entry;
  }

  /** Drops one key's entry, if any. */
  delete(key: string): void {
    const slot = this.slots.get(key);
    if (slot !== undefined) this.remove(key, slot);
  }

  /**
   * Drops every entry that answered `path` (any route, query or variant) and marks the flights
   * fetching it, so a response that left the upstream before the change is not stored after it
   * (RFC 9111 4.4). Returns how many entries went.
   */
  invalidatePath(path: string): number {
    for (const flight of this.flights.values()) if (flight.path === path) flight.invalidated = true;
    return this.removeAll(this.byPath.get(path));
  }

  /** Called when a route compiles: a changed configuration must not serve what the old one stored. */
  retain(routeId: string, fingerprint: string): void {
    const known = this.fingerprints.get(routeId);
    if (known !== undefined && known !== fingerprint) this.purge(routeId);
    this.fingerprints.set(routeId, fingerprint);
  }

  /** True when this caller now leads the miss for `key` (fetching `path`); false when another miss is in flight. */
  lead(key: string, path: string): boolean {
    if (this.flights.has(key)) return false;
    this.flights.set(key, { path, waiters: [], invalidated: false });
    return true;
  }

  /**
   * Calls `resume` once the miss in flight for `key` settles (at once if none is): `stored` says
   * whether the leader stored a response (look again) or not (go upstream, do not queue again:
   * an uncacheable response must not serialize the requests for it).
   */
  wait(key: string, resume: (stored: boolean) => void): void {
    const flight = this.flights.get(key);
    if (flight === undefined) resume(true);
    else flight.waiters.push(resume);
  }

  release(key: string, stored: boolean): void {
    const flight = this.flights.get(key);
    if (flight === undefined) return;
    this.flights.delete(key);
    for (const resume of flight.waiters) resume(stored);
  }

  /** Drops the entries of `keys` (a copy is walked: removing edits the index sets); returns how many. */
  private removeAll(keys: ReadonlySet<string> | undefined): number {
    if (keys === undefined) return 0;
    let removed = 0;
    for (const key of [...keys]) {
      const slot = this.slots.get(key);
      if (slot !== undefined) {
        this.remove(key, slot);
        removed += 1;
      }
    }
    return removed;
  }

  private remove(key: string, slot: Slot): void {
    this.slots.delete(key);
    this.bytes -= slot.entry.size;
    this.byRoute.get(slot.routeId)?.delete(key);
    const sameTarget = this.byPath.get(slot.entry.path);
    if (sameTarget !== undefined) {
      sameTarget.delete(key);
      if (sameTarget.size === 0) this.byPath.delete(slot.entry.path);
    }
  }
}
