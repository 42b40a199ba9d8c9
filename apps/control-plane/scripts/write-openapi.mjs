// Writes apps/control-plane/openapi.json: the document a booted control plane serves at
// /api/docs-json (so it is what clients get, not a second description). The admin UI's API types
// are generated from this file in its build; test/api/openapi-file.e2e.ts fails when the file
// differs from what a running control plane serves. Run with `npm run openapi` after an API change.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const { start } = createRequire(import.meta.url)(path.join(here, '..', 'dist', 'start.js'));
const target = path.join(here, '..', 'openapi.json');

const dir = mkdtempSync(path.join(tmpdir(), 'openapi-'));
// A throwaway SQLite control plane: the document depends on the code, not on settings or data.
const env = { PATH: process.env.PATH, LOG_LEVEL: 'error', JWT_SECRET: randomBytes(32).toString('hex'), SETTINGS_ENCRYPTION_KEY: randomBytes(32).toString('hex') };
const cp = await start({ dataDir: path.join(dir, 'data'), configPath: path.join(dir, 'proxy.yml'), listen: { host: '127.0.0.1', port: 0 }, env });
try {
  const response = await fetch(`http://127.0.0.1:${cp.port}/api/docs-json`, { signal: AbortSignal.timeout(30_000) });
  if (!response.ok) throw new Error(`GET /api/docs-json answered ${response.status}`);
  writeFileSync(target, `${JSON.stringify(await response.json(), null, 2)}\n`);
  process.stdout.write(`wrote ${path.relative(process.cwd(), target)}\n`);
} finally {
  await cp.close();
  rmSync(dir, { recursive: true, force: true });
}
