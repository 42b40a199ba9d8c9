import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Secrets one-process mode generates when their variable is unset, and the file each is kept in
 * under the data directory.
 */
export const SECRET_FILES = {
  /** JWT_SECRET: management tokens survive a restart. */
  jwt: 'jwt-secret',
  /** API_KEY_SECRET: the stored HMAC digests of API keys stay valid across restarts. */
  apiKey: 'api-key-secret',
} as const;

export type PersistedSecretName = keyof typeof SECRET_FILES;

/** Shorter content is not trusted as a secret (MIN_SECRET_LENGTH): a new one replaces it. */
const MIN_STORED_LENGTH = 32;

/**
 * One-process mode without the secret's variable: the secret is generated once and kept in
 * `<dataDir>/<file>` (mode 0600) so what depends on it (issued tokens, API-key digests) survives a
 * restart.
 */
export function readOrCreateSecret(dataDir: string, name: PersistedSecretName): { secret: string; source: 'file' | 'generated' } {
  const file = path.join(dataDir, SECRET_FILES[name]);
  try {
    const secret = readFileSync(file, 'utf8').trim();
    if (secret.length >= MIN_STORED_LENGTH) return { secret, source: 'file' };
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

/** The secret an earlier start kept in the data dir, or undefined when there is none (never creates one). */
export function readStoredSecret(dataDir: string, name: PersistedSecretName): { file: string; secret: string } | undefined {
  const file = path.join(dataDir, SECRET_FILES[name]);
  try {
    const secret = readFileSync(file, 'utf8').trim();
    return secret === '' ? undefined : { file, secret };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Constant-time equality of two secrets of any length (both are hashed to equal-length digests first). */
export function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}
