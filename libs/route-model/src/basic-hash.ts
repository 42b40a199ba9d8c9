import type { Issue } from './field-spec';

/**
 * The stored form of a basic-auth password (never the password itself):
 * `scrypt$<N>$<r>$<p>$<salt base64>$<derived key base64>`, N a power of two in 2^10..2^20,
 * r 1..32, p 1..16, salt at least 16 bytes, key 32..64 bytes. The data plane's basic-auth policy
 * verifies it; docs/edge-policies.md shows how to make one.
 */
export const BASIC_HASH_PATTERN = /^scrypt\$(\d{1,8})\$(\d{1,2})\$(\d{1,2})\$([A-Za-z0-9+/]+={0,2})\$([A-Za-z0-9+/]+={0,2})$/;

export interface BasicHashParts {
  N: number;
  r: number;
  p: number;
  salt: Buffer;
  key: Buffer;
}

export function parseBasicHash(value: string): BasicHashParts | undefined {
  const m = BASIC_HASH_PATTERN.exec(value);
  if (m === null) return undefined;
  const N = Number(m[1]);
  const r = Number(m[2]);
  const p = Number(m[3]);
  const salt = Buffer.from(m[4] as string, 'base64');
  const key = Buffer.from(m[5] as string, 'base64');
  const powerOfTwo = N >= 1024 && N <= 1 << 20 && (N & (N - 1)) === 0;
  if (!powerOfTwo || r < 1 || r > 32 || p < 1 || p > 16 || salt.length < 16 || key.length < 32 || key.length > 64) return undefined;
  return { N, r, p, salt, key };
}

export function basicHashCheck(value: string, label: string): Issue | undefined {
  return parseBasicHash(value) === undefined
    ? { message: `${label} must be a password hash scrypt$<N>$<r>$<p>$<salt base64>$<key base64> (N a power of two 1024..1048576, salt >= 16 bytes, key 32..64 bytes); plain-text passwords are refused` }
    : undefined;
}
