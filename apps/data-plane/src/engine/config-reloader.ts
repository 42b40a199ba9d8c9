import path from 'node:path';
import { diffRoutes, type FieldError, type ProxyConfig } from '@gateway/route-model';
import type { ReloadOutcome } from '../data-plane-options';
import type { EngineServices } from './ports';
import type { PolicyFactory } from './policy';
import type { RequestDispatcher } from './request-dispatcher';
import { RouteTable } from './route-table';
import { writeJsonAtomic } from './state-files';
import type { UpstreamAgentPool } from './upstream-target';
import type { UpstreamHealthRegistry } from './upstream-health-registry';

export type ConfigLoad = { ok: true; config: ProxyConfig } | { ok: false; errors: Array<FieldError & { line?: number }> };

export interface ConfigReloaderDeps {
  load(): Promise<ConfigLoad>;
  dispatcher: RequestDispatcher;
  factories: readonly PolicyFactory[];
  services: EngineServices;
  health: UpstreamHealthRegistry;
  agents: UpstreamAgentPool;
  /** Where routes.snapshot.json and reload-status.json go. */
  snapshotPath: string;
  statusPath: string;
  /** host/port overrides from the command line, kept across reloads. */
  overrides: { host?: string; port?: number };
}

/**
 * Loads, validates and atomically applies route configuration. Reloads never overlap: a request
 * that arrives while one runs is coalesced into a single follow-up run. An invalid file keeps
 * the running table and says why.
 */
export class ConfigReloader {
  private running: Promise<ReloadOutcome> | undefined;
  private queued: Promise<ReloadOutcome> | undefined;

  constructor(private readonly deps: ConfigReloaderDeps) {}

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

  /** Compiles and swaps in a configuration; throws only on a bug, never on bad input. */
  async apply(config: ProxyConfig): Promise<ReloadOutcome & { ok: true }> {
    const { dispatcher, factories, services, health, agents, overrides } = this.deps;
    const before = dispatcher.getTable()?.config.routes ?? [];
    const settings = { ...config.proxy, ...definedOnly(overrides) };
    const env = config.authentication === undefined ? { settings, services } : { settings, services, authentication: config.authentication };
    const table = RouteTable.compile(config, factories, env, agents);
    health.setUpstreamNames(config.upstreams.map((u) => u.name));
    dispatcher.setTable(table);
    services.metrics.setRouteCount(table.routes.length);
    agents.prune(table.agentsInUse());
    const at = new Date().toISOString();
    // The table is live now: failing to record it must not turn the reload into a failure.
    await writeJsonAtomic(this.deps.snapshotPath, { appliedAt: at, routes: config.routes }).catch((error: unknown) =>
      services.logger.warn({ err: String(error), file: path.basename(this.deps.snapshotPath) }, 'could not write the route snapshot'),
    );
    return { ok: true, routes: table.routes.length, diff: diffRoutes(before, config.routes), at };
  }

  private async run(): Promise<ReloadOutcome> {
    const { services } = this.deps;
    let outcome: ReloadOutcome;
    try {
      const loaded = await this.deps.load();
      if (loaded.ok) {
        this.warnOnServerSettingChanges(loaded.config);
        const applied = await this.apply(loaded.config);
        outcome = applied;
        services.metrics.configReload('success');
        const { diff } = applied;
        services.logger.info(
          { routes: applied.routes, added: diff.added.map((r) => r.id), changed: diff.changed.map((c) => c.after.id), removed: diff.removed.map((r) => r.id) },
          'configuration reloaded',
        );
      } else {
        outcome = { ok: false, errors: loaded.errors, at: new Date().toISOString() };
        services.metrics.configReload('failure');
        services.logger.warn({ errors: loaded.errors }, 'configuration reload rejected; keeping the running configuration');
      }
    } catch (error) {
      outcome = { ok: false, errors: [{ field: '(reload)', code: 'RELOAD_FAILED', message: String(error) }], at: new Date().toISOString() };
      services.metrics.configReload('failure');
      services.logger.error({ err: String(error) }, 'configuration reload failed; keeping the running configuration');
    }
    await writeJsonAtomic(this.deps.statusPath, outcome).catch((error: unknown) =>
      services.logger.warn({ err: String(error), file: path.basename(this.deps.statusPath) }, 'could not write reload status'),
    );
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
