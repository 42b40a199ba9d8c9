import 'reflect-metadata';
import { existsSync } from 'node:fs';
import { DataSource } from 'typeorm';
import { ConfigRevisionEntity } from './cluster/config-revision.entity';
import { ProxyFileStateEntity } from './cluster/proxy-file-state.entity';
import { loadDatabaseConfig } from './config/control-plane-config';
import { readProxyFile } from './config-file/proxy-file.reader';
import { planReconciliation, reservedFileRoutes } from './config-file/reconciliation-plan';
import type { ReconcileOutcome } from './control-plane-options';
import { dataSourceOptions } from './database/data-source-options';
import { storeLocation } from './database/store-location';
import { RouteEntity } from './routes/route.entity';
import { UpstreamEntity } from './upstreams/upstream.entity';

export interface PreviewReconcileOptions {
  dataDir: string;
  configPath: string;
  env?: NodeJS.ProcessEnv;
  /** Path prefixes the gateway serves itself (the management prefixes in one process). */
  reservedPathPrefixes?: readonly string[];
}

/** The store previewReconcile() would read with these options (RunningControlPlane.store's form). */
export function previewStore(options: Pick<PreviewReconcileOptions, 'dataDir' | 'env'>): string {
  return storeLocation(loadDatabaseConfig(options.env ?? process.env, options.dataDir));
}

/** Whether a control plane keeps a store with these options: PostgreSQL, or an existing SQLite file. */
export function storeExists(options: Pick<PreviewReconcileOptions, 'dataDir' | 'env'>): boolean {
  const database = loadDatabaseConfig(options.env ?? process.env, options.dataDir);
  return database.kind === 'postgres' || existsSync(database.file);
}

/**
 * `gateway config:reload --dry-run` from another process: what reconciling proxy.yml would change
 * in the store (the same plan as the running control plane's dry run), read-only. A SQLite file
 * that does not exist yet is an empty store; an unmigrated database is an error.
 */
export async function previewReconcile(options: PreviewReconcileOptions): Promise<ReconcileOutcome> {
  const file = await readProxyFile(options.configPath);
  if (!file.ok) return { ok: false, errors: file.errors };
  const reserved = reservedFileRoutes(file, options.reservedPathPrefixes ?? []);
  if (reserved.length > 0) return { ok: false, errors: reserved };
  const database = loadDatabaseConfig(options.env ?? process.env, options.dataDir);
  if (database.kind === 'sqlite' && !existsSync(database.file)) {
    const plan = planReconciliation(file, [], { upstreams: [] });
    return plan.conflicts.length > 0 ? { ok: false, errors: plan.conflicts } : { ok: true, dryRun: true, version: 0, diff: plan.diff };
  }
  const dataSource = new DataSource(dataSourceOptions(database));
  await dataSource.initialize();
  try {
    if (await dataSource.showMigrations()) throw new Error('the database has pending migrations; run `gateway migrate` first');
    const stored = await dataSource.getRepository(RouteEntity).find({ withDeleted: true });
    const state = await dataSource.getRepository(ProxyFileStateEntity).findOneBy({ id: 1 });
    const revision = await dataSource.getRepository(ConfigRevisionEntity).findOneBy({ id: 1 });
    const apiUpstreams = await dataSource.getRepository(UpstreamEntity).find({ select: { name: true } });
    const fileState = state?.authentication ? { upstreams: state.upstreams, authentication: state.authentication } : { upstreams: state?.upstreams ?? [] };
    const plan = planReconciliation(file, stored, fileState, apiUpstreams.map((u) => u.name));
    if (plan.conflicts.length > 0) return { ok: false, errors: plan.conflicts };
    return { ok: true, dryRun: true, version: revision?.revision ?? 0, diff: plan.diff };
  } finally {
    await dataSource.destroy();
  }
}
