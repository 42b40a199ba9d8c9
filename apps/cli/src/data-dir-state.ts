import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { DATA_FILES, type ReloadOutcome } from '@gateway/data-plane/data-plane-options';
import type { Route } from '@gateway/route-model';

/** Readers of what the running data plane leaves in its data directory (see DATA_FILES). */

export interface RoutesSnapshot {
  appliedAt: string;
  routes: Route[];
}

export type SnapshotRead =
  | { kind: 'found'; file: string; snapshot: RoutesSnapshot }
  | { kind: 'missing'; file: string }
  | { kind: 'unreadable'; file: string; reason: string };

export function dataFile(dataDir: string, name: keyof typeof DATA_FILES): string {
  return path.join(dataDir, DATA_FILES[name]);
}

/** `routes.snapshot.json`: `{ appliedAt, routes }`, rewritten after every applied configuration. */
export async function readRoutesSnapshot(dataDir: string): Promise<SnapshotRead> {
  const file = dataFile(dataDir, 'snapshot');
  const read = await readJson(file);
  if (read.kind !== 'found') return read;
  const value = read.value as Partial<RoutesSnapshot> | null;
  if (value === null || typeof value !== 'object' || !Array.isArray(value.routes)) {
    return { kind: 'unreadable', file, reason: 'no "routes" array' };
  }
  return { kind: 'found', file, snapshot: { appliedAt: typeof value.appliedAt === 'string' ? value.appliedAt : 'an unknown time', routes: value.routes } };
}

/** `reload-status.json`: the ReloadOutcome of the latest reload, or undefined (none yet, or mid-write garbage). */
export async function readReloadStatus(dataDir: string): Promise<ReloadOutcome | undefined> {
  const read = await readJson(dataFile(dataDir, 'reloadStatus'));
  if (read.kind !== 'found') return undefined;
  const value = read.value as Partial<ReloadOutcome> | null;
  if (value === null || typeof value !== 'object' || typeof value.at !== 'string' || typeof value.ok !== 'boolean') return undefined;
  return value as ReloadOutcome;
}

type JsonRead = { kind: 'found'; value: unknown } | { kind: 'missing'; file: string } | { kind: 'unreadable'; file: string; reason: string };

async function readJson(file: string): Promise<JsonRead> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? { kind: 'missing', file } : { kind: 'unreadable', file, reason: code ?? String(error) };
  }
  try {
    return { kind: 'found', value: JSON.parse(text) as unknown };
  } catch {
    return { kind: 'unreadable', file, reason: 'not valid JSON' };
  }
}
