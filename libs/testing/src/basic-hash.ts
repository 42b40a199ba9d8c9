import { randomBytes, scryptSync } from 'node:crypto';

/**
 * A password in the stored form `auth.basic.users` takes (`scrypt$N$r$p$salt$hash`). A small
 * scrypt N by default keeps tests cheap; the gateway accepts any N its bounds allow.
 */
export function basicHash(password: string, N = 1024): string {
  const salt = randomBytes(16);
  return `scrypt$${N}$8$1$${salt.toString('base64')}$${scryptSync(password, salt, 32, { N, r: 8, p: 1, maxmem: 256 * N * 8 + 1024 * 1024 }).toString('base64')}`;
}
