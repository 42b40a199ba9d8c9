import path from 'node:path';
import { deepEqual, type FieldError, type ProxyConfig, type RouteDiff } from '@gateway/route-model';
import type { ReloadOutcome } from '../data-plane-options';
import type { ApiKeySet, PersistedRouteSnapshot } from './persisted-snapshot';
import type { EngineServices } from './ports';
import type { PolicyFactory, ReleasedRoutes } from './policy';
import { PendingRelease } from './released-routes';
import type { RequestDispatcher } from './request-dispatcher';
import { RouteTable, upstreamEnvironment, type BuiltTable, type RouteChanges, type TableInputs } from './route-table';
import { LatestJsonFile, type SerializedJsonArray } from './state-files';
import { runInSlices, runToEnd } from './time-slices';
import type { UpstreamPools } from './upstream-target';
import type { UpstreamHealthRegistry } from './upstream-health-registry';
import type { UpstreamRegistry } from './upstreams/upstream-registry';

/** Routes looked at in one step of prunePoolSteps. */
const POOL_SCAN_CHUNK = 1000;

/** How long after a route change the state it left behind is released (see releaseLater). */
const RELEASE_DELAY_MS = 250;

/**
 * A configuration ready to apply (with the control plane's revision when it came from one, and
 * its API keys when it came as a whole snapshot; without `apiKeys` the known keys stay), or why not.
 */
export type ConfigLoad =
  | {
      ok: true;
      config: ProxyConfig;
      revision?: number;
      apiKeys?: ApiKeySet;
      /** Per route, a fingerprint of its definition (see TableSource): unchanged routes are found without comparing them. */
      fingerprints?: ReadonlyArray<string | undefined>;
      /** The routes' JSON as loaded, element i being `config.routes[i]`: routes.snapshot.json takes it as is. */
      routeJson?: SerializedJsonArray;
    }
  | { ok: false; errors: Array<FieldError & { line?: number }> };

export interface ConfigReloaderDeps {
  /** Where reload() reads the configuration (proxy.yml, or a control-plane snapshot). */
  load(): Promise<ConfigLoad>;
  dispatcher: RequestDispatcher;
  factories: readonly PolicyFactory[];
  services: EngineServices;
  health: UpstreamHealthRegistry;
  pools: UpstreamPools;
  /** Balancers and per-target state of named upstreams, replaced with each configuration. */
  upstreams?: UpstreamRegistry;
  /** Where routes.snapshot.json goes. */
  snapshotPath: string;
  /**
   * Where reload-status.json goes: the answer to a SIGHUP that `gateway config:reload` waits for.
   * Unset when the routes come from a control plane: every change message would otherwise
   * overwrite the answer the CLI is waiting for, so there the CLI's reload writes it.
   */
  statusPath?: string;
  /** host/port overrides from the command line, kept across reloads. */
  overrides: { host?: string; port?: number };
  /** Where the configuration comes from, recorded in routes.snapshot.json. */
  source?: PersistedRouteSnapshot['source'];
  /** Hands a snapshot's API keys to whatever verifies them (wired by the composition root). */
  applyApiKeys?(set: ApiKeySet): void;
  /**
   * What else route pipelines read when they compile, as a string (whether API keys can be
   * verified): when it changes, a reload recompiles every route instead of reusing them.
   */
  pipelineInputs?(): string | undefined;
}

/**
 * The one path by which a configuration becomes live, whatever its source (a proxy.yml reload, a
 * control-plane snapshot or a single route change): compile a new immutable table, swap it, count
 * and log the reload, record it in the data directory. Reloads from `load()` never overlap: calls
 * that arrive while one runs are coalesced into a single follow-up run. A configuration that does
 * not load keeps the running table and says why.
 */
export class ConfigReloader {
  private running: Promise<ReloadOutcome> | undefined;
  private queued: Promise<ReloadOutcome> | undefined;
  private readonly snapshotFile: LatestJsonFile;
  private readonly statusFile: LatestJsonFile | undefined;
  /** Settles when routes.snapshot.json holds the latest applied configuration (or failed to). */
  private snapshotWritten: Promise<void> = Promise.resolve();
  /** Settles once the state left behind by the last swaps is released (see releaseLater). */
  private released: Promise<void> | undefined;
  /** A release is scheduled and has not started yet: further swaps join it. */
  private releasePending = false;
  /** Tables being compiled in slices right now (their new routes' state is not in the live table yet). */
  private building = 0;
  /** What the swaps since the last finished release left behind (see releaseSteps). */
  private readonly pendingRelease = new PendingRelease();
  /** The API keys last applied (saved with every snapshot file, also after single route changes). */
  private apiKeys: ApiKeySet | undefined;

  constructor(private readonly deps: ConfigReloaderDeps) {
    this.snapshotFile = new LatestJsonFile(deps.snapshotPath);
    this.statusFile = deps.statusPath === undefined ? undefined : new LatestJsonFile(deps.statusPath);
  }

  reload(): Promise<ReloadOutcome> {
    if (this.running === undefined) {
      this.running = this.run().finally(() => {
        this.running = undefined;
      });
      return this.running;
    }
    this.queued ??= this.running.then(() => {
      this.queued = undefined;
      return this.reload();
    });
    return this.queued;
  }

  /**
   * Compiles and swaps in a configuration synchronously (start-up: nothing is served yet); the
   * next request sees the new table, requests in flight finish on theirs. routes.snapshot.json
   * follows asynchronously, latest wins. Throws only on a bug, never on bad input.
   */
  apply(config: ProxyConfig, revision?: number, apiKeys?: ApiKeySet): ReloadOutcome & { ok: true } {
    const inputs = this.prepare(config, apiKeys);
    return this.install(runToEnd(RouteTable.buildSteps({ config }, inputs, this.deps.dispatcher.getTable())), revision, 'now');
  }

  /**
   * The same for a whole configuration while traffic flows: compiled in slices of a few
   * milliseconds (routes that did not change are reused), then swapped in one step. `stillWanted`
   * is asked right before the swap (a change applied meanwhile may have made this one stale);
   * when it says no, nothing is swapped and the result is undefined.
   */
  async applyInSlices(loaded: ConfigLoad & { ok: true }, stillWanted: () => boolean = () => true): Promise<(ReloadOutcome & { ok: true }) | undefined> {
    const inputs = this.prepare(loaded.config, loaded.apiKeys);
    const source = loaded.fingerprints === undefined ? { config: loaded.config } : { config: loaded.config, fingerprints: loaded.fingerprints };
    this.building += 1;
    let built: BuiltTable;
    try {
      built = await runInSlices(RouteTable.buildSteps(source, inputs, this.deps.dispatcher.getTable()));
    } finally {
      this.building -= 1;
    }
    return stillWanted() ? this.install(built, loaded.revision, 'slices', loaded.routeJson) : undefined;
  }

  /**
   * A few routes changed (a control-plane change message): only they are compiled, and the
   * route index is updated in place, so applying one change costs about the same at 10 routes
   * as at 10,000. Falls back to a full build when the change touches what every route is compiled
   * against. Logged, counted and recorded like any reload.
   */
  commitChanges(changes: RouteChanges, revision: number, what: string): ReloadOutcome {
    return this.record(
      () => {
        const inputs = this.prepare(changes.config, undefined);
        const current = this.deps.dispatcher.getTable();
        const built = current?.withChanges(changes, inputs) ?? runToEnd(RouteTable.buildSteps({ config: changes.config }, inputs, current));
        return this.install(built, revision, 'later');
      },
      { revision },
      what,
    );
  }

  /**
   * Releases the long-lived state (breakers, health checks, upstream pools...) of what the live
   * table no longer has. A policy is told which routes went (`release`) when only routes changed;
   * otherwise its retain walks every route and then its own state, a chunk of a few hundred a
   * step (one walk over 10,000 routes in one step was 2 to 9 ms of CPU on a busy machine), so each
   * step runs in a slice of its own. Between two steps the table may change or a
   * build may start (see releaseLater: state a build creates for its new routes is not in the live
   * table yet): then the pass stops where it is, having released only what was unused by the table
   * live at each step, and says so ('interrupted').
   */
  private *releaseSteps(): Generator<void, 'done' | 'interrupted', void> {
    if (this.deps.dispatcher.getTable() === undefined) return 'done';
    const work = this.pendingRelease.take();
    const outcome = yield* this.releaseWorkSteps(work);
    // What this pass did not get to is released by the next one (it walks again where it must).
    this.pendingRelease.settle(work, outcome === 'done');
    return outcome;
  }

  /**
   * A release pass: each policy is told what went away (`release`) when only routes were removed
   * or changed, and walks the whole configuration (`retain`) otherwise or when it has no `release`.
   */
  private *releaseWorkSteps(work: 'full' | ReleasedRoutes | undefined): Generator<void, 'done' | 'interrupted', void> {
    const { dispatcher, factories, services } = this.deps;
    const table = dispatcher.getTable() as RouteTable;
    if (!(yield* this.prunePoolSteps())) return 'interrupted';
    const stale = (): boolean => dispatcher.getTable() !== table || this.building > 0;
    if (stale()) return 'interrupted';
    // Nothing left behind since the last release that finished (a pass that already covered this swap).
    if (work === undefined) return 'done';
    const { config } = table;
    const env = upstreamEnvironment(config, { settings: { ...config.proxy, ...definedOnly(this.deps.overrides) }, services });
    for (const factory of factories) {
      if (factory.retain === undefined && factory.release === undefined) continue;
      try {
        const steps = work !== 'full' && factory.release !== undefined ? factory.release(work, config, env) : factory.retain?.(config, env);
        if (steps === undefined) continue;
        for (let step = steps.next(); step.done !== true; step = steps.next()) {
          yield;
          if (stale()) {
            steps.return();
            return 'interrupted';
          }
        }
      } catch (error) {
        services.logger.error({ err: String(error), policy: factory.key }, 'releasing policy state failed');
      }
      yield;
      if (stale()) return 'interrupted';
    }
    return 'done';
  }

  /**
   * Closes the upstream pools no route of the live table uses. The routes are gathered a chunk a
   * step (one pass over 10,000 routes took up to 12 ms on a busy machine: a cache miss or more per
   * route); when the table changed meanwhile, this pass prunes nothing and leaves it to the next
   * release (an unused pool only keeps its idle connections until their keep-alive ends) and
   * says so (false).
   */
  private *prunePoolSteps(): Generator<void, boolean, void> {
    const table = this.deps.dispatcher.getTable() as RouteTable;
    // Under traffic every pool holds connections, and a pool with connections is never pruned: no walk of 10,000 routes for nothing.
    if (!this.deps.pools.anyIdle()) return true;
    const inUse = yield* table.poolsInUseSteps(POOL_SCAN_CHUNK);
    if (this.deps.dispatcher.getTable() !== table) return false;
    try {
      this.deps.pools.prune(inUse);
    } catch (error) {
      this.deps.services.logger.error({ err: String(error) }, 'closing unused upstream pools failed');
    }
    yield;
    return true;
  }

  /**
   * Releases what the live table no longer uses, `delayMs` from now and in slices; requests made
   * while one is pending join it (a burst of route changes releases once). Until then a removed
   * route's state only takes memory. A release that meets a table being built waits for the build.
   */
  private releaseLater(delayMs: number): void {
    if (this.releasePending) return;
    this.releasePending = true;
    const previous = this.released ?? Promise.resolve();
    const released: Promise<void> = previous.then(async () => {
      let wait = delayMs;
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, wait));
        if (this.building > 0) {
          wait = RELEASE_DELAY_MS;
          continue;
        }
        this.releasePending = false;
        // A slice a step (budget 0): a step is a chunk of routes; releasing is never urgent.
        if ((await runInSlices(this.releaseSteps(), 0)) === 'done') break;
        // A build started or a table was swapped meanwhile: a swap asks for a release of its own; this one joins it.
        if (this.releasePending) break;
        this.releasePending = true;
        wait = RELEASE_DELAY_MS;
      }
      if (this.released === released) this.released = undefined;
    });
    this.released = released;
  }

  /** Before a table compiles: API keys first (the auth policy reads whether keys can be verified at all). */
  private prepare(config: ProxyConfig, apiKeys: ApiKeySet | undefined): TableInputs {
    if (apiKeys !== undefined) {
      this.deps.applyApiKeys?.(apiKeys);
      this.apiKeys = apiKeys;
    }
    const { factories, services, pools, overrides } = this.deps;
    const settings = { ...config.proxy, ...definedOnly(overrides) };
    const baseEnv = config.authentication === undefined ? { settings, services } : { settings, services, authentication: config.authentication };
    const extra = this.deps.pipelineInputs?.();
    const registry = this.deps.upstreams;
    return { factories, baseEnv, pools, ...(registry === undefined ? {} : { registry }), ...(extra === undefined ? {} : { extra }) };
  }

  /**
   * Swaps a built table in and does what follows every swap. The state of removed routes is
   * released `now` (start-up: nothing is served yet), in slices right after the swap, or `later`:
   * once per burst of route changes (releaseLater).
   */
  private install(built: BuiltTable, revision: number | undefined, release: 'now' | 'slices' | 'later', routeJson?: SerializedJsonArray): ReloadOutcome & { ok: true } {
    const { dispatcher, services, health } = this.deps;
    const { table, diff } = built;
    const config = table.config;
    const previous = dispatcher.getTable();
    // Before the swap: the new table's routes resolve their named upstreams through the registry.
    const upstreamsChanged = previous === undefined || !deepEqual(previous.config.upstreams, config.upstreams);
    if (upstreamsChanged) this.deps.upstreams?.replace(config.upstreams);
    health.setUpstreamNames(config.upstreams.map((u) => u.name));
    // A full reload's index updates the previous table's in place: in the same synchronous step as the swap.
    table.settleIndex();
    dispatcher.setTable(table);
    services.metrics.setRouteCount(table.routes.length);
    if (revision !== undefined) services.metrics.setConfigRevision(revision);
    // Only a removed or changed route, other upstreams or a rotated CA file can leave state (breakers, checks, pools) behind.
    const beyondRoutes = built.retargeted > 0 || upstreamsChanged;
    // Additions too: one may bring back a route whose release is pending.
    this.pendingRelease.add(diff, beyondRoutes);
    if (diff.removed.length > 0 || diff.changed.length > 0 || beyondRoutes) {
      if (release === 'now') runToEnd(this.releaseSteps());
      else this.releaseLater(release === 'later' ? RELEASE_DELAY_MS : 0);
    }
    const at = new Date().toISOString();
    const persisted: PersistedRouteSnapshot = {
      appliedAt: at,
      source: this.deps.source ?? 'file',
      ...(revision === undefined ? {} : { version: revision }),
      routes: config.routes,
      upstreams: config.upstreams,
      ...(config.authentication === undefined ? {} : { authentication: config.authentication }),
      ...(this.apiKeys === undefined ? {} : { apiKeys: [...this.apiKeys.keys] }),
      ...(this.apiKeys?.secretFingerprint === undefined ? {} : { apiKeySecretFingerprint: this.apiKeys.secretFingerprint }),
    };
    // The table's routes are the loaded ones, one for one: the loader's JSON text of them is theirs.
    const written = routeJson !== undefined && routeJson.length === config.routes.length ? { ...persisted, routes: routeJson } : persisted;
    // The table is live now: failing to record it must not turn the reload into a failure.
    this.snapshotWritten = this.snapshotFile.write(written).catch((error: unknown) =>
      services.logger.warn({ err: String(error), file: path.basename(this.deps.snapshotPath) }, 'could not write the route snapshot'),
    );
    const outcome: ReloadOutcome & { ok: true } = { ok: true, routes: table.routes.length, diff, at };
    return revision === undefined ? outcome : { ...outcome, version: revision };
  }

  /**
   * Applies a loaded configuration (or records why it did not load): the reload metric, one log
   * line and reload-status.json, the same for every source. `what` names the change in the log.
   */
  commit(loaded: ConfigLoad, what = 'configuration reloaded'): ReloadOutcome {
    if (!loaded.ok) return this.recordFailure(loaded.errors);
    return this.record(() => this.apply(loaded.config, loaded.revision, loaded.apiKeys), loaded, what);
  }

  /** commit() with the table compiled in slices (see applyInSlices); undefined when `stillWanted` said no. */
  async commitInSlices(loaded: ConfigLoad, what = 'configuration reloaded', stillWanted?: () => boolean): Promise<ReloadOutcome | undefined> {
    if (!loaded.ok) return this.recordFailure(loaded.errors);
    let applied: (ReloadOutcome & { ok: true }) | undefined;
    let failure: unknown;
    try {
      applied = await this.applyInSlices(loaded, stillWanted);
    } catch (error) {
      failure = error;
    }
    if (failure === undefined && applied === undefined) return undefined;
    return this.record(
      () => {
        if (applied === undefined) throw failure;
        return applied;
      },
      loaded,
      what,
    );
  }

  /** Logs, counts and records an apply (or the bug that made it throw). */
  private record(apply: () => ReloadOutcome & { ok: true }, loaded: { revision?: number; apiKeys?: ApiKeySet }, what: string): ReloadOutcome {
    const { services } = this.deps;
    let outcome: ReloadOutcome;
    try {
      const applied = apply();
      outcome = applied;
      services.logger.info(
        {
          routes: applied.routes,
          ...(loaded.revision === undefined ? {} : { version: loaded.revision }),
          ...diffIds(applied.diff),
          ...(loaded.apiKeys === undefined ? {} : { apiKeys: loaded.apiKeys.keys.length }),
        },
        what,
      );
    } catch (error) {
      outcome = { ok: false, errors: [{ field: '(reload)', code: 'RELOAD_FAILED', message: String(error) }], at: new Date().toISOString() };
      services.logger.error({ err: String(error) }, 'configuration reload failed; keeping the running configuration');
    }
    return this.counted(outcome);
  }

  private recordFailure(errors: Array<FieldError & { line?: number }>): ReloadOutcome {
    this.deps.services.logger.warn({ errors }, 'configuration reload rejected; keeping the running configuration');
    return this.counted({ ok: false, errors, at: new Date().toISOString() });
  }

  /** Counted once both files say the same: whoever sees the counter move can read them. */
  private counted(outcome: ReloadOutcome): ReloadOutcome {
    const { services } = this.deps;
    const result = outcome.ok ? 'success' : 'failure';
    const statusFile = this.statusFile;
    const statusWritten = statusFile
      ?.write(outcome)
      .catch((error: unknown) => services.logger.warn({ err: String(error), file: path.basename(statusFile.filePath) }, 'could not write reload status'));
    void Promise.all([this.snapshotWritten, statusWritten]).then(() => services.metrics.configReload(result));
    return outcome;
  }

  /** Resolves once routes.snapshot.json and reload-status.json hold the latest applied state. */
  async flush(): Promise<void> {
    await Promise.all([this.snapshotFile.settled(), this.statusFile?.settled(), this.released]);
  }

  private async run(): Promise<ReloadOutcome> {
    let loaded: ConfigLoad;
    try {
      loaded = await this.deps.load();
    } catch (error) {
      loaded = { ok: false, errors: [{ field: '(reload)', code: 'RELOAD_FAILED', message: String(error) }] };
    }
    if (loaded.ok) this.warnOnServerSettingChanges(loaded.config);
    // Nothing else swaps tables in file mode, so the build is always still wanted.
    const outcome = (await this.commitInSlices(loaded)) as ReloadOutcome;
    await this.flush();
    return outcome;
  }

  /** Listening address, header limits and client timeouts belong to the socket: they need a restart. */
  private warnOnServerSettingChanges(config: ProxyConfig): void {
    const running = this.deps.dispatcher.getTable()?.config.proxy;
    if (running === undefined) return;
    const changed: string[] = (['host', 'port', 'maxHeaderSize', 'headersTimeout', 'requestTimeout', 'keepAliveTimeout'] as const).filter(
      (key) => running[key] !== config.proxy[key],
    );
    // The access log and the OTLP exporter are set up at boot (tracing.enabled and samplingRatio apply on reload).
    if (JSON.stringify(running.accessLog) !== JSON.stringify(config.proxy.accessLog)) changed.push('accessLog');
    if (JSON.stringify(running.tracing?.otlp) !== JSON.stringify(config.proxy.tracing?.otlp)) changed.push('tracing.otlp');
    if (changed.length > 0) this.deps.services.logger.warn({ settings: changed.map((k) => `proxy.${k}`) }, 'changed proxy settings apply after a restart');
  }
}

/** Ids listed per kind in a reload's log line: the first snapshot of 10,000 routes would otherwise log every id in one line. */
const LOGGED_IDS = 50;

/** The ids a reload added, changed and removed, for its log line (the first LOGGED_IDS of each, with the total when there are more). */
function diffIds(diff: RouteDiff): Record<string, string[] | number> {
  const lists = { added: diff.added.map((r) => r.id), changed: diff.changed.map((c) => c.after.id), removed: diff.removed.map((r) => r.id) };
  const out: Record<string, string[] | number> = {};
  for (const [kind, ids] of Object.entries(lists)) {
    out[kind] = ids.slice(0, LOGGED_IDS);
    if (ids.length > LOGGED_IDS) out[`${kind}Total`] = ids.length;
  }
  return out;
}

function definedOnly(overrides: { host?: string; port?: number }): { host?: string; port?: number } {
  const out: { host?: string; port?: number } = {};
  if (overrides.host !== undefined) out.host = overrides.host;
  if (overrides.port !== undefined) out.port = overrides.port;
  return out;
}
