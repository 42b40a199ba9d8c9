import path from 'node:path';
import type { DatabaseConfig } from '../config/control-plane-config';

/**
 * Where a store is, without credentials: `sqlite:<absolute file>` or `postgres://host:port/database`.
 * The CLI records it for the running gateway and compares it with the store it would open itself,
 * so that a dry run never previews against another database than the one the gateway uses.
 */
export function storeLocation(database: DatabaseConfig): string {
  if (database.kind === 'sqlite') return `sqlite:${path.resolve(database.file)}`;
  const url = new URL(database.url);
  return `postgres://${url.hostname}:${url.port === '' ? '5432' : url.port}/${decodeURIComponent(url.pathname.slice(1))}`;
}
