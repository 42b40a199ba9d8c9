import type { RunningControlPlane } from '@gateway/control-plane/control-plane-options';
import type { ReloadOutcome } from '@gateway/data-plane/data-plane-options';
import { writeFileAtomic } from './atomic-write';
import { dataFile } from './data-dir-state';

/**
 * SIGHUP with a control plane in this process: proxy.yml is checked with the data plane's own
 * reader (a file the data plane could not serve as written never reaches the store), reconciled
 * into the store (file routes only), and the data plane in this process, if any, resyncs at once
 * instead of waiting for the change message. The answer is the store's diff: exactly what
 * `config:reload` previewed against the same store (previewReconcile, the same plan).
 */
export async function reloadThroughStore(
  controlPlane: RunningControlPlane,
  settings: { configPath: string; dataDir: string },
  dataPlane?: { reload(): Promise<ReloadOutcome> },
): Promise<ReloadOutcome> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- require(), not import(): no ESM loader (command-registry.ts)
  const { loadProxyConfig } = require('@gateway/data-plane/proxy-config-source') as typeof import('@gateway/data-plane/proxy-config-source');
  const servable = await loadProxyConfig(settings.configPath);
  const reconciled = servable.ok ? await controlPlane.reconcileFile() : servable;
  if (!reconciled.ok) return recordReloadOutcome(settings.dataDir, { ok: false, errors: reconciled.errors, at: new Date().toISOString() });
  const synced = await dataPlane?.reload();
  const routes = synced?.ok === true ? synced.routes : (await controlPlane.snapshot()).routes.length;
  return recordReloadOutcome(settings.dataDir, { ok: true, routes, diff: reconciled.diff, at: new Date().toISOString(), version: reconciled.version });
}

/**
 * Writes reload-status.json, which `config:reload` waits for, once per SIGHUP. With a control
 * plane the data plane does not write it (its change messages would overwrite the answer), so
 * `gateway start` does, for every role that follows or holds a store.
 */
export async function recordReloadOutcome(dataDir: string, outcome: ReloadOutcome): Promise<ReloadOutcome> {
  await writeFileAtomic(dataFile(dataDir, 'reloadStatus'), `${JSON.stringify(outcome)}\n`).catch(() => undefined);
  return outcome;
}
