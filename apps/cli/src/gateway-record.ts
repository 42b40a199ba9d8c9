import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from './atomic-write';
import type { GatewayRole } from './gateway-roles';

/** `gateway start` records which gateway owns the data directory here (see RouteOwner). */
export const RECORD_FILE = 'gateway.role.json';

/**
 * Who decides the routes of the gateway started with a data directory, which is what
 * `config:reload` must diff proxy.yml against: the store of its control plane (roles `all` and
 * `control-plane`), proxy.yml itself (a data plane alone, routes.snapshot.json), or a remote
 * control plane (a data plane following CONTROL_PLANE_URL, whose proxy.yml routes are not its own).
 */
export type RouteOwner =
  | { kind: 'store'; store: string; /** Paths the gateway serves itself, which its reload refuses in proxy.yml. */ reservedPathPrefixes?: readonly string[] }
  | { kind: 'file' }
  | { kind: 'control-plane'; url: string };

export interface GatewayRecord {
  role: GatewayRole;
  pid: number;
  startedAt: string;
  routes: RouteOwner;
}

export function recordFile(dataDir: string): string {
  return path.join(dataDir, RECORD_FILE);
}

/** Kept after the gateway stops: a dry run before the next start still knows where its routes are. */
export async function writeGatewayRecord(dataDir: string, record: GatewayRecord): Promise<void> {
  await writeFileAtomic(recordFile(dataDir), `${JSON.stringify(record)}\n`);
}

/** The record, or undefined when no gateway was started with this directory (or the file is not one). */
export async function readGatewayRecord(dataDir: string): Promise<GatewayRecord | undefined> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(recordFile(dataDir), 'utf8'));
  } catch {
    return undefined;
  }
  const record = value as Partial<GatewayRecord> | null;
  const routes = record?.routes as Partial<{ kind: string; store: unknown; url: unknown }> | undefined;
  const valid =
    routes !== undefined &&
    ((routes.kind === 'store' && typeof routes.store === 'string') || routes.kind === 'file' || (routes.kind === 'control-plane' && typeof routes.url === 'string'));
  return valid && typeof record?.role === 'string' ? (record as GatewayRecord) : undefined;
}
