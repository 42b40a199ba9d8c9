import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
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
  /** CLUSTER_TOKEN: the key the in-process bus signs its messages with (SignedBus); kept so it is one stable key. */
  cluster: 'cluster-token',
  /** SETTINGS_ENCRYPTION_KEY: secrets kept in settings stay readable across restarts. */
  settings: 'settings-encryption-key',
} as const;

export type PersistedSecretName = keyof typeof SECRET_FILES;

export interface PersistedSecret {
  secret: string;
  source: 'file' | 'generated';
  /** Where it is kept: a problem with the secret names this file. */
  file: string;
}

/**
 * One-process mode without the secret's variable: the secret is generated once and kept in
 * `<dataDir>/<file>` (mode 0600) so what depends on it (issued tokens, API-key digests) survives a
 * restart. An existing file is returned as it is, whatever it holds: the caller judges it
 * (parseControlPlaneConfig refuses one shorter than MIN_SECRET_LENGTH). Replacing it here would
 * silently invalidate every token and API key issued with it.
 */
export function readOrCreateSecret(dataDir: string, name: PersistedSecretName): PersistedSecret {
  const file = path.join(dataDir, SECRET_FILES[name]);
  const stored = readIfPresent(file);
  if (stored !== undefined) return { secret: stored, source: 'file', file };
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  // Written whole under a private name, then linked into place: the file appears complete or not
  // at all (a crash cannot leave an empty secret behind), and link() never clobbers a secret
  // another process put there a moment ago; on EEXIST that one is read.
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(temporary, 'wx', 0o600);
  try {
    writeSync(fd, `${secret}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return { secret: readIfPresent(file) ?? '', source: 'file', file };
  } finally {
    unlinkSync(temporary);
  }
  return { secret, source: 'generated', file };
}

function readIfPresent(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** The secret an earlier start kept in the data dir, or undefined when there is none (never creates one). */
export function readStoredSecret(dataDir: string, name: PersistedSecretName): { file: string; secret: string } | undefined {
  const file = path.join(dataDir, SECRET_FILES[name]);
  const secret = readIfPresent(file);
  return secret === undefined || secret === '' ? undefined : { file, secret };
}

/** Constant-time equality of two secrets of any length (both are hashed to equal-length digests first). */
export function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}
