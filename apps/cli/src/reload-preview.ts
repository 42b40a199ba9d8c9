import { diffRoutes, MANAGEMENT_PATH_PREFIXES, type Route, type RouteDiff } from '@gateway/route-model';
import { CommandFailure, type CommandContext } from './command';
import type { LocatedFieldError } from './config-error-report';
import { readRoutesSnapshot } from './data-dir-state';
import { readGatewayRecord, type RouteOwner } from './gateway-record';
import { displayPath, type GatewayPaths } from './gateway-paths';

/** What reloading proxy.yml would change, against what the gateway's routes come from. */
export type ReloadPreview = { ok: true; header: string; diff: RouteDiff } | { ok: false; errors: LocatedFieldError[] };

/**
 * The diff `config:reload` prints before it signals (and alone with --dry-run). Where the routes
 * come from is recorded by `gateway start` (gateway.role.json): with a control plane, the file
 * routes in its store, read with the control plane's own plan (previewReconcile) from the same
 * database, so the preview is what the reload will apply; a data plane alone, the routes it last
 * applied (routes.snapshot.json). Never started here: a store if one is found, else the snapshot.
 */
export async function previewReload(paths: GatewayPaths, context: CommandContext, fileRoutes: readonly Route[]): Promise<ReloadPreview> {
  const record = await readGatewayRecord(paths.dataDir);
  const owner = record?.routes ?? (await storeFoundHere(paths, context)) ?? { kind: 'file' };
  switch (owner.kind) {
    case 'store':
      // The prefixes the gateway recorded; a store never started here is the default one-process gateway's.
      return previewAgainstStore(paths, context, owner.store, owner.reservedPathPrefixes ?? MANAGEMENT_PATH_PREFIXES);
    case 'file':
      return previewAgainstSnapshot(paths, context, fileRoutes);
    case 'control-plane':
      throw new CommandFailure(
        `the gateway started with ${displayPath(context.cwd, paths.dataDir)} is a data plane following the control plane at ${owner.url}: ` +
          `its routes come from there, not from ${paths.configLabel}; run config:reload where that control plane runs, with its --data-dir`,
      );
  }
}

async function storeFoundHere(paths: GatewayPaths, context: CommandContext): Promise<RouteOwner | undefined> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- require(), not import(): no ESM loader (command-registry.ts)
  const { storeExists } = require('@gateway/control-plane/preview-reconcile') as typeof import('@gateway/control-plane/preview-reconcile');
  let exists: boolean;
  try {
    exists = storeExists({ dataDir: paths.dataDir, env: context.env });
  } catch (error) {
    throw new CommandFailure(error instanceof Error ? error.message : String(error), { cause: error });
  }
  return exists ? { kind: 'store', store: await storeReadHere(paths, context) } : undefined;
}

async function storeReadHere(paths: GatewayPaths, context: CommandContext): Promise<string> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- require(), not import(): no ESM loader (command-registry.ts)
  const { previewStore } = require('@gateway/control-plane/preview-reconcile') as typeof import('@gateway/control-plane/preview-reconcile');
  try {
    return previewStore({ dataDir: paths.dataDir, env: context.env });
  } catch (error) {
    throw new CommandFailure(error instanceof Error ? error.message : String(error), { cause: error });
  }
}

async function previewAgainstStore(paths: GatewayPaths, context: CommandContext, store: string, reserved: readonly string[]): Promise<ReloadPreview> {
  const here = await storeReadHere(paths, context);
  // SQLite: the file in this data directory, whatever path led here. PostgreSQL: the same database.
  const same = store.startsWith('sqlite:') ? here.startsWith('sqlite:') : here === store;
  if (!same) {
    throw new CommandFailure(
      `the gateway keeps its routes in ${describeStore(context, store)}, but this command would read ${describeStore(context, here)}: ` +
        `set DATABASE_URL as the gateway has it (in the environment or .env), or unset it for SQLite`,
    );
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- require(), not import(): no ESM loader (command-registry.ts)
  const { previewReconcile } = require('@gateway/control-plane/preview-reconcile') as typeof import('@gateway/control-plane/preview-reconcile');
  let outcome;
  try {
    outcome = await previewReconcile({ dataDir: paths.dataDir, configPath: paths.configPath, env: context.env, reservedPathPrefixes: reserved });
  } catch (error) {
    throw new CommandFailure(`cannot read the control plane's store (${describeStore(context, here)}): ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  if (!outcome.ok) return { ok: false, errors: outcome.errors };
  return { ok: true, header: `Route changes in ${paths.configLabel} against the file routes in the control plane's store (${describeStore(context, here)}, revision ${outcome.version}):`, diff: outcome.diff };
}

async function previewAgainstSnapshot(paths: GatewayPaths, context: CommandContext, fileRoutes: readonly Route[]): Promise<ReloadPreview> {
  const snapshot = await readRoutesSnapshot(paths.dataDir);
  const snapshotLabel = displayPath(context.cwd, snapshot.file);
  let header: string;
  if (snapshot.kind === 'found') {
    header = `Route changes in ${paths.configLabel} against the routes the gateway applied at ${snapshot.snapshot.appliedAt} (${snapshotLabel}):`;
  } else {
    const why = snapshot.kind === 'missing' ? 'no routes snapshot at' : `cannot read the routes snapshot (${snapshot.reason}) at`;
    header = `Route changes in ${paths.configLabel} against no routes (${why} ${snapshotLabel}):`;
  }
  // Only routes from the file are the file's to change (a snapshot written while following a
  // control plane also holds routes made through the API).
  const before = snapshot.kind === 'found' ? snapshot.snapshot.routes.filter((route) => route.source !== 'api') : [];
  return { ok: true, header, diff: diffRoutes(before, fileRoutes) };
}

function describeStore(context: CommandContext, store: string): string {
  return store.startsWith('sqlite:') ? `SQLite ${displayPath(context.cwd, store.slice('sqlite:'.length))}` : `PostgreSQL ${store.slice('postgres://'.length)}`;
}
