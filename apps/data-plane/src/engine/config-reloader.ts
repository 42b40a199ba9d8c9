import path from 'node:path';
import { diffRoutes, type FieldError, type ProxyConfig } from '@gateway/route-model';
import type { ReloadOutcome } from '../data-plane-options';
import type { ApiKeySet, PersistedRouteSnapshot } from './persisted-snapshot';
import type { EngineServices } from './ports';
import type { PolicyFactory } from './policy';
import type { RequestDispatcher } from './request-dispatcher';
import { RouteTable, upstreamEnvironment } from './route-table';
import { LatestJsonFile } from './state-files';
import type { UpstreamPools } from './upstream-target';
import type { UpstreamHealthRegistry } from './upstream-health-registry';

/**
 * A configuration ready to apply (with the control plane's revision when it came from one, and
 * its API keys when it came as a whole snapshot; without `apiKeys` the known keys stay), or why not.
 */
export type ConfigLoad =
  | { ok: true; config: ProxyConfig; revision?: number; apiKeys?: ApiKeySet }
  | { ok: false; errors: Array<FieldError & { line?: number }> };

export interface ConfigReloaderDeps {
  /** Where reload() reads the configuration (proxy.yml, or a control-plane snapshot). */
  load(): Promise<ConfigLoad>;
  dispatcher: RequestDispatcher;
  factories: readonly PolicyFactory[];
  services: EngineServices;
  health: UpstreamHealthRegistry;
  pools: UpstreamPools;
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
   * Compiles and swaps in a configuration synchronously (the next request sees the new table;
   * requests in flight finish on theirs); routes.snapshot.json follows asynchronously, latest wins.
   * Throws only on a bug, never on bad input.
   */
  apply(config: ProxyConfig, revision?: number, apiKeys?: ApiKeySet): ReloadOutcome & { ok: true } {
    const { dispatcher, factories, services, health, pools, overrides } = this.deps;
    if (apiKeys !== undefined) {
      // Before the table compiles: the auth policy reads whether keys can be verified at all.
      this.deps.applyApiKeys?.(apiKeys);
      this.apiKeys = apiKeys;
    }
    const before = dispatcher.getTable()?.config.routes ?? [];
    const settings = { ...config.proxy, ...definedOnly(overrides) };
    const baseEnv = config.authentication === undefined ? { settings, services } : { settings, services, authentication: config.authentication };
    const table = RouteTable.compile(config, factories, baseEnv, pools);
    health.setUpstreamNames(config.upstreams.map((u) => u.name));
    dispatcher.setTable(table);
    services.metrics.setRouteCount(table.routes.length);
    if (revision !== undefined) services.metrics.setConfigRevision(revision);
    pools.prune(table.poolsInUse());
    const env = upstreamEnvironment(config, baseEnv);
    for (const factory of factories) {
      try {
        factory.retain?.(config, env);
      } catch (error) {
        services.logger.error({ err: String(error), policy: factory.key }, 'releasing policy state failed');
      }
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
    // The table is live now: failing to record it must not turn the reload into a failure.
    this.snapshotWritten = this.snapshotFile.write(persisted).catch((error: unknown) =>
      services.logger.warn({ err: String(error), file: path.basename(this.deps.snapshotPath) }, 'could not write the route snapshot'),
    );
    const outcome: ReloadOutcome & { ok: true } = { ok: true, routes: table.routes.length, diff: diffRoutes(before, config.routes), at };
    return revision === undefined ? outcome : { ...outcome, version: revision };
  }

  /**
   * Applies a loaded configuration (or records why it did not load): the reload metric, one log
   * line and reload-status.json, the same for every source. `what` names the change in the log.
   */
  commit(loaded: ConfigLoad, what = 'configuration reloaded'): ReloadOutcome {
    const { services } = this.deps;
    let outcome: ReloadOutcome;
    if (loaded.ok) {
      try {
        const applied = this.apply(loaded.config, loaded.revision, loaded.apiKeys);
        outcome = applied;
        const { diff } = applied;
        services.logger.info(
          {
            routes: applied.routes,
            ...(loaded.revision === undefined ? {} : { version: loaded.revision }),
            added: diff.added.map((r) => r.id),
            changed: diff.changed.map((c) => c.after.id),
            removed: diff.removed.map((r) => r.id),
            ...(loaded.apiKeys === undefined ? {} : { apiKeys: loaded.apiKeys.keys.length }),
          },
          what,
        );
      } catch (error) {
        outcome = { ok: false, errors: [{ field: '(reload)', code: 'RELOAD_FAILED', message: String(error) }], at: new Date().toISOString() };
        services.logger.error({ err: String(error) }, 'configuration reload failed; keeping the running configuration');
      }
    } else {
      outcome = { ok: false, errors: loaded.errors, at: new Date().toISOString() };
      services.logger.warn({ errors: loaded.errors }, 'configuration reload rejected; keeping the running configuration');
    }
    // Counted once both files say the same: whoever sees the counter move can read them.
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
    await Promise.all([this.snapshotFile.settled(), this.statusFile?.settled()]);
  }

  private async run(): Promise<ReloadOutcome> {
    let loaded: ConfigLoad;
    try {
      loaded = await this.deps.load();
    } catch (error) {
      loaded = { ok: false, errors: [{ field: '(reload)', code: 'RELOAD_FAILED', message: String(error) }] };
    }
    if (loaded.ok) this.warnOnServerSettingChanges(loaded.config);
    const outcome = this.commit(loaded);
    await this.flush();
    return outcome;
  }

  /** Listening address, header limits and client timeouts belong to the socket: they need a restart. */
  private warnOnServerSettingChanges(config: ProxyConfig): void {
    const running = this.deps.dispatcher.getTable()?.config.proxy;
    if (running === undefined) return;
    const changed = (['host', 'port', 'maxHeaderSize', 'headersTimeout', 'requestTimeout', 'keepAliveTimeout'] as const).filter(
      (key) => running[key] !== config.proxy[key],
    );
    if (changed.length > 0) this.deps.services.logger.warn({ settings: changed.map((k) => `proxy.${k}`) }, 'changed proxy settings apply after a restart');
  }
}

function definedOnly(overrides: { host?: string; port?: number }): { host?: string; port?: number } {
  const out: { host?: string; port?: number } = {};
  if (overrides.host !== undefined) out.host = overrides.host;
  if (overrides.port !== undefined) out.port = overrides.port;
  return out;
}
