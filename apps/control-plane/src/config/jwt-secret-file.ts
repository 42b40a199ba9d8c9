import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const JWT_SECRET_FILE = 'jwt-secret';

/**
 * One-process mode without JWT_SECRET: the secret is generated once and kept in
 * `<dataDir>/jwt-secret` (mode 0600) so issued tokens survive a restart.
 */
export function readOrCreateJwtSecret(dataDir: string): { secret: string; source: 'file' | 'generated' } {
  const file = path.join(dataDir, JWT_SECRET_FILE);
  try {
    const secret = readFileSync(file, 'utf8').trim();
    if (secret.length >= 32) return { secret, source: 'file' };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  // 'wx' never clobbers a secret another process wrote a moment ago; on EEXIST that one is read.
  try {
    writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return { secret: readFileSync(file, 'utf8').trim(), source: 'file' };
    throw error;
  }
  chmodSync(file, 0o600);
  return { secret, source: 'generated' };
}
