import { ROUTE_CHANGES_CHANNEL, type MessageBus, type RouteChangeMessage, type RouteSnapshot } from '@gateway/events';
import type { FieldError, ProxyConfig, ProxySettings, Route } from '@gateway/route-model';
import type { ReloadOutcome } from '../data-plane-options';
import type { ConfigReloader } from '../engine/config-reloader';
import { readPersistedSnapshot } from '../engine/persisted-snapshot';
import type { PolicyFactory } from '../engine/policy';
import type { Logger } from '../engine/ports';
import { runInSlices } from '../engine/time-slices';
import { readRouteSnapshot, routeRefusals, servableConfigSteps, type ServableConfig } from './servable-config';

export interface FollowerTiming {
  /** No message at all (heartbeats included) for this long: the stream cannot be trusted. */
  silenceMs: number;
  /** Bound of the first snapshot fetch: past it the data plane starts from its saved snapshot. */
  startupTimeoutMs: number;
  /** Bound of every later fetch (a hung fetch would block every resync after it). */
  fetchTimeoutMs: number;
  /** Backoff between failed fetches: doubles from min to max. */
  retryMinMs: number;
  retryMaxMs: number;
}

/** Contract: 3 s of silence; retries capped at 1 s so a returning control plane is followed within 2 s. */
export const FOLLOWER_TIMING: FollowerTiming = { silenceMs: 3000, startupTimeoutMs: 2000, fetchTimeoutMs: 5000, retryMinMs: 100, retryMaxMs: 1000 };

export interface ControlPlaneFollowerDeps {
  bus: MessageBus;
  fetchSnapshot(): Promise<RouteSnapshot>;
  /** The data plane's one apply path (the same as proxy.yml reloads). */
  reloader: Pick<ConfigReloader, 'commit' | 'commitInSlices' | 'commitChanges'>;
  /** Listening and body settings: local, never from the control plane. */
  settings: ProxySettings;
  factories: readonly PolicyFactory[];
  logger: Logger;
  /** routes.snapshot.json: where the data plane starts from when the control plane does not answer. */
  snapshotPath: string;
  timing?: Partial<FollowerTiming>;
  /** Breakers a runbook holds OPEN (snapshot `breakerHolds`), still running, applied after every fetched snapshot. */
  applyBreakerHolds?: (holds: ReadonlyArray<{ routeId: string; untilMs: number }>) => void;
}

type FetchResult = { ok: true; snapshot: RouteSnapshot } | { ok: false; reason: string };

const NO_CHANGE = { added: [], changed: [], removed: [] };

/**
 * Keeps the route table equal to the control plane's configuration. Change messages are hints:
 * one with `version === current + 1` is applied in place; a gap, a `reloaded`, a bus reconnect or
 * silence (no message, heartbeats included, for `silenceMs`) makes it fetch a snapshot instead.
 * Fetches never overlap: requests during one are coalesced into one more, failures are retried
 * with capped backoff, and the last table keeps serving meanwhile. Every change goes through the
 * ConfigReloader, so it is swapped atomically, counted, logged and saved like a file reload.
 */
export class ControlPlaneFollower {
  private readonly timing: FollowerTiming;
  /** The applied configuration and its control-plane version (undefined: not known, e.g. a file snapshot). */
  private config: ProxyConfig | undefined;
  private version: number | undefined;
  private lastHeard = Date.now();
  private cycle: Promise<void> | undefined;
  private fetchAgain = false;
  /** Changes applied in place so far: a snapshot fetched before one of them is older than the table. */
  private appliedInPlace = 0;
  /** Highest version a message announced while the current fetch ran. */
  private seenDuringFetch = -1;
  private nextWaiters: Array<(outcome: ReloadOutcome) => void> = [];
  private triedSavedSnapshot = false;
  private wake: (() => void) | undefined;
  private closed = false;
  private unsubscribe: (() => void) | undefined;
  private offReconnect: (() => void) | undefined;
  private silenceTimer: NodeJS.Timeout | undefined;
  /** Settles when close() is called, so a fetch in flight never holds up shutdown. */
  private readonly closedSignal: Promise<FetchResult>;
  private signalClosed: () => void = () => undefined;

  constructor(private readonly deps: ControlPlaneFollowerDeps) {
    this.timing = { ...FOLLOWER_TIMING, ...deps.timing };
    this.closedSignal = new Promise<FetchResult>((resolve) => {
      this.signalClosed = () => resolve({ ok: false, reason: 'data plane closing' });
    });
  }

  /** The control-plane version of the table being served, if known. */
  get currentVersion(): number | undefined {
    return this.version;
  }

  /**
   * Subscribes, then waits for the first snapshot (bounded by startupTimeoutMs); when it does not
   * come, starts from the saved snapshot, or with no table at all (not ready), and keeps trying.
   */
  async start(): Promise<void> {
    this.subscribe();
    this.offReconnect = this.deps.bus.onReconnect?.(() => {
      this.deps.logger.info({}, 'message bus reconnected; fetching a snapshot');
      this.lastHeard = Date.now();
      void this.requestSnapshot();
    });
    const interval = Math.max(10, Math.min(500, Math.floor(this.timing.silenceMs / 3)));
    this.silenceTimer = setInterval(() => this.checkSilence(), interval);
    this.silenceTimer.unref();
    await this.resync();
  }

  /** Fetches a snapshot now (coalesced with any running fetch); resolves with that attempt's outcome. */
  resync(): Promise<ReloadOutcome> {
    if (this.closed) return Promise.resolve(failedOutcome('data plane closing'));
    return new Promise<ReloadOutcome>((resolve) => {
      this.nextWaiters.push(resolve);
      void this.requestSnapshot();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.signalClosed();
    clearInterval(this.silenceTimer);
    this.unsubscribe?.();
    this.offReconnect?.();
    this.wake?.();
    const waiting = this.nextWaiters;
    this.nextWaiters = [];
    waiting.forEach((w) => w(failedOutcome('data plane closing')));
    await this.cycle;
  }

  /** Entry point of every bus message; `raw` is untrusted. */
  readonly onMessage = (raw: unknown): void => {
    if (this.closed) return;
    this.lastHeard = Date.now();
    const message = readChangeMessage(raw);
    if (message === undefined) {
      this.deps.logger.warn({ channel: ROUTE_CHANGES_CHANNEL }, 'ignored a malformed route change message');
      return;
    }
    if (this.cycle !== undefined) this.seenDuringFetch = Math.max(this.seenDuringFetch, message.version);
    const current = this.version;
    if (current === undefined) {
      // No known version (nothing loaded yet, or a table saved from proxy.yml): only a snapshot helps.
      if (this.cycle === undefined) void this.requestSnapshot();
      return;
    }
    if (message.version <= current) return; // stale or already applied
    if ((message.kind === 'upserted' || message.kind === 'deleted') && message.version === current + 1) {
      this.applyInPlace(message);
      return;
    }
    this.deps.logger.info({ kind: message.kind, version: message.version, current }, message.kind === 'reloaded' ? 'control plane reloaded; fetching a snapshot' : 'missed route changes; fetching a snapshot');
    void this.requestSnapshot();
  };

  private subscribe(): void {
    this.deps.bus.subscribe<unknown>(ROUTE_CHANGES_CHANNEL, this.onMessage).then(
      (unsubscribe) => {
        if (this.closed) unsubscribe();
        else this.unsubscribe = unsubscribe;
      },
      (error: unknown) => {
        // Snapshots (on silence) keep the table fresh meanwhile; the subscription is retried.
        this.deps.logger.warn({ err: String(error) }, 'cannot subscribe to route changes; retrying');
        if (!this.closed) setTimeout(() => !this.closed && this.subscribe(), this.timing.retryMaxMs).unref();
      },
    );
  }

  private checkSilence(): void {
    if (this.closed || this.cycle !== undefined) return;
    if (Date.now() - this.lastHeard < this.timing.silenceMs) return;
    this.lastHeard = Date.now();
    this.deps.logger.debug({ silenceMs: this.timing.silenceMs }, 'no message from the control plane; fetching a snapshot');
    void this.requestSnapshot();
  }

  private requestSnapshot(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.cycle !== undefined) {
      this.fetchAgain = true;
      this.wake?.();
      return this.cycle;
    }
    this.cycle = this.fetchUntilCurrent().finally(() => {
      this.cycle = undefined;
    });
    return this.cycle;
  }

  /** Fetches until one attempt succeeds with no newer request pending; never two at once. */
  private async fetchUntilCurrent(): Promise<void> {
    let delay = this.timing.retryMinMs;
    let failures = 0;
    while (!this.closed) {
      this.fetchAgain = false;
      this.seenDuringFetch = -1;
      const waiters = this.nextWaiters;
      this.nextWaiters = [];
      const appliedBefore = this.appliedInPlace;
      const timeout = this.config === undefined && !this.triedSavedSnapshot ? this.timing.startupTimeoutMs : this.timing.fetchTimeoutMs;
      const result = await this.fetchOnce(timeout);
      if (this.closed) {
        waiters.forEach((w) => w(failedOutcome('data plane closing')));
        return;
      }
      if (result.ok) {
        const outcome = await this.applySnapshot(result.snapshot, appliedBefore);
        if (failures > 0) this.deps.logger.info({ failures }, 'control plane snapshot fetched again');
        failures = 0;
        delay = this.timing.retryMinMs;
        this.lastHeard = Date.now();
        if (this.version !== undefined && this.seenDuringFetch > this.version) this.fetchAgain = true;
        waiters.forEach((w) => w(outcome));
        if (!this.fetchAgain) return;
        continue;
      }
      failures += 1;
      const failed = failedOutcome(result.reason);
      let outcome: ReloadOutcome = failed;
      if (failures === 1) {
        // One failure per outage is counted and logged; the retries in between only at debug.
        outcome = this.deps.reloader.commit({ ok: false, errors: failed.errors });
        this.deps.logger.warn({ reason: result.reason, version: this.version ?? null }, 'cannot fetch a snapshot from the control plane; serving the last configuration and retrying');
      } else {
        this.deps.logger.debug({ reason: result.reason, failures }, 'snapshot fetch failed again');
      }
      if (this.config === undefined && !this.triedSavedSnapshot) {
        this.triedSavedSnapshot = true;
        await this.startFromSavedSnapshot();
      }
      waiters.forEach((w) => w(outcome));
      await this.sleep(delay);
      delay = Math.min(delay * 2, this.timing.retryMaxMs);
    }
  }

  private async fetchOnce(timeoutMs: number): Promise<FetchResult> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<FetchResult>((resolve) => {
      timer = setTimeout(() => resolve({ ok: false, reason: `no snapshot within ${timeoutMs} ms` }), timeoutMs);
    });
    // Through a promise so a fetcher that throws synchronously is one failed fetch, not a crash.
    const fetched = Promise.resolve()
      .then(() => this.deps.fetchSnapshot())
      .then(
      (value): FetchResult => {
        const read = readRouteSnapshot(value);
        return read.ok ? read : { ok: false, reason: read.reason };
      },
      (error: unknown): FetchResult => ({ ok: false, reason: error instanceof Error ? error.message : String(error) }),
    );
    try {
      return await Promise.race([fetched, timeout, this.closedSignal]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async applySnapshot(snapshot: RouteSnapshot, appliedInPlaceBefore: number): Promise<ReloadOutcome> {
    const outcome = await this.applySnapshotRoutes(snapshot, appliedInPlaceBefore);
    this.applyHolds(snapshot.breakerHolds);
    return outcome;
  }

  /** The snapshot is untrusted input like any message: a malformed hold is skipped, an ended one ignored. */
  private applyHolds(holds: unknown): void {
    if (this.deps.applyBreakerHolds === undefined || !Array.isArray(holds)) return;
    const now = Date.now();
    const live: Array<{ routeId: string; untilMs: number }> = [];
    for (const hold of holds.slice(0, 10_000) as unknown[]) {
      const { routeId, until } = (typeof hold === 'object' && hold !== null ? hold : {}) as Record<string, unknown>;
      const untilMs = typeof until === 'string' ? Date.parse(until) : Number.NaN;
      if (typeof routeId === 'string' && routeId.length > 0 && untilMs > now) live.push({ routeId, untilMs });
    }
    if (live.length > 0) this.deps.applyBreakerHolds(live);
  }

  private async applySnapshotRoutes(snapshot: RouteSnapshot, appliedInPlaceBefore: number): Promise<ReloadOutcome> {
    const current = this.version;
    if (this.config !== undefined && current !== undefined) {
      if (snapshot.version === current) return this.unchanged();
      if (snapshot.version < current) {
        // A change applied in place while this fetch ran: the snapshot predates the table.
        if (this.appliedInPlace !== appliedInPlaceBefore) return this.unchanged();
        this.deps.logger.warn({ version: snapshot.version, current }, 'the control plane configuration version went back; following it');
      }
    }
    // Checked and compiled in slices: a snapshot of 10,000 routes must not stall traffic. Change
    // messages keep being applied meanwhile; if one lands, the snapshot is only swapped in when
    // it is newer than what is then served.
    const appliedBeforeBuild = this.appliedInPlace;
    const servable = await runInSlices(servableConfigSteps(snapshot, this.deps.settings, this.deps.factories, this.config?.routes ?? []));
    const stillWanted = (): boolean => this.appliedInPlace === appliedBeforeBuild || this.version === undefined || snapshot.version > this.version;
    const outcome = await this.applyServable(servable, snapshot.version, 'configuration applied from a control plane snapshot', stillWanted);
    return outcome ?? this.unchanged();
  }

  private async applyServable(servable: ServableConfig, version: number | undefined, what: string, stillWanted?: () => boolean): Promise<ReloadOutcome | undefined> {
    if (!(stillWanted?.() ?? true)) return undefined;
    for (const skipped of servable.skipped) this.deps.logger.warn({ routeId: skipped.routeId, errors: skipped.errors }, 'route not served');
    if (servable.ignored.length > 0) this.deps.logger.warn({ errors: servable.ignored }, 'configuration blocks ignored by this data plane');
    const loaded = { ok: true as const, config: servable.config, apiKeys: servable.apiKeys };
    const outcome = await this.deps.reloader.commitInSlices(version === undefined ? loaded : { ...loaded, revision: version }, what, stillWanted);
    if (outcome?.ok === true) {
      this.config = servable.config;
      this.version = version;
    }
    return outcome;
  }

  private applyInPlace(message: Extract<RouteChangeMessage, { kind: 'upserted' | 'deleted' }>): void {
    const base = this.config as ProxyConfig;
    const id = message.kind === 'upserted' ? message.route.id : message.routeId;
    const index = base.routes.findIndex((r) => r.id === id);
    const routes = base.routes.slice();
    if (index !== -1) routes.splice(index, 1);
    let upserted: Route | undefined;
    if (message.kind === 'upserted' && message.route.enabled === true) {
      const refusals = routeRefusals(message.route, this.deps.factories);
      // The control plane changed the route into one this data plane cannot serve: the old
      // version must not stay live either.
      if (refusals.length > 0) this.deps.logger.warn({ routeId: id, errors: refusals }, 'route not served');
      else {
        upserted = message.route;
        routes.splice(index === -1 ? routes.length : index, 0, upserted);
      }
    }
    const config: ProxyConfig = { ...base, routes };
    // Only this route is compiled and re-indexed (issue 19: under 5 ms at 10,000 routes).
    const changes = { config, upserted: upserted === undefined ? [] : [upserted], removedIds: upserted === undefined && index !== -1 ? [id] : [] };
    const outcome = this.deps.reloader.commitChanges(changes, message.version, `route ${message.kind}`);
    if (outcome.ok) {
      this.config = config;
      this.version = message.version;
      this.appliedInPlace += 1;
    } else {
      void this.requestSnapshot();
    }
  }

  private async startFromSavedSnapshot(): Promise<void> {
    const read = await readPersistedSnapshot(this.deps.snapshotPath);
    // A fetch may have succeeded meanwhile (a reconnect): never go back to the saved one then.
    if (this.config !== undefined || this.closed) return;
    if (read.kind === 'missing') {
      this.deps.logger.warn({}, 'no saved route snapshot; not ready until the control plane answers');
      return;
    }
    if (read.kind === 'unreadable') {
      this.deps.logger.warn({ reason: read.reason }, 'the saved route snapshot is unreadable; not ready until the control plane answers');
      return;
    }
    const saved = read.snapshot;
    const servable = await runInSlices(servableConfigSteps(saved, this.deps.settings, this.deps.factories, []));
    // A fetch may have succeeded while the saved snapshot was being checked: never go back then.
    const outcome = await this.applyServable(servable, saved.version, 'configuration applied from the saved snapshot', () => this.config === undefined && !this.closed);
    if (outcome?.ok === true) this.deps.logger.warn({ version: saved.version ?? null, appliedAt: saved.appliedAt, routes: outcome.routes }, 'serving the saved route snapshot until the control plane answers');
  }

  private unchanged(): ReloadOutcome {
    const base = { ok: true as const, routes: this.config?.routes.length ?? 0, diff: NO_CHANGE, at: new Date().toISOString() };
    return this.version === undefined ? base : { ...base, version: this.version };
  }

  /** Waits `ms`, or less when a new request (reconnect, gap) or close() wakes it. */
  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        if (this.wake === done) this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }
}

function failedOutcome(reason: string): ReloadOutcome & { ok: false } {
  const errors: FieldError[] = [{ field: '(control-plane)', code: 'SNAPSHOT_UNAVAILABLE', message: reason }];
  return { ok: false, errors, at: new Date().toISOString() };
}

/** The message, if it has the shape of the contract; routes inside are validated when applied. */
export function readChangeMessage(raw: unknown): RouteChangeMessage | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const m = raw as Record<string, unknown>;
  const version = m['version'];
  if (!Number.isSafeInteger(version) || (version as number) < 0) return undefined;
  switch (m['kind']) {
    case 'heartbeat':
    case 'reloaded':
      return { kind: m['kind'], version: version as number };
    case 'deleted':
      return typeof m['routeId'] === 'string' ? { kind: 'deleted', version: version as number, routeId: m['routeId'] } : undefined;
    case 'upserted': {
      const route = m['route'];
      if (typeof route !== 'object' || route === null || typeof (route as { id?: unknown }).id !== 'string') return undefined;
      return { kind: 'upserted', version: version as number, route: route as Route };
    }
    default:
      return undefined;
  }
}
