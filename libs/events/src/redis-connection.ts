import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';

/**
 * What every Redis connection of the gateway (bus, rate-limit counters, API throttler) adds to
 * REDIS_URL. The URL itself carries the rest, as ioredis reads it: `rediss://` for TLS and
 * `user:password@` for an ACL user (both percent-encoded).
 */
export interface RedisConnectionOptions {
  tls?: ConnectionOptions;
}

/**
 * `tlsCa` (REDIS_TLS_CA_FILE's PEM) is the trust for a `rediss://` server: a private CA or a
 * self-signed certificate, instead of Node's bundled CAs. Host names are still verified.
 */
export function redisConnectionOptions(url: string, tlsCa: string | undefined): RedisConnectionOptions {
  return tlsCa !== undefined && /^rediss:/i.test(url) ? { tls: { ca: tlsCa } } : {};
}

/**
 * Reads REDIS_TLS_CA_FILE. Throws an Error whose message names the variable and says what is
 * wrong (unreadable, no PEM certificate, or REDIS_URL not `rediss://`), never the file's content.
 */
export function readRedisTlsCa(file: string, redisUrl: string | undefined): string {
  if (redisUrl === undefined || !/^rediss:/i.test(redisUrl)) throw new Error('REDIS_TLS_CA_FILE is set, but REDIS_URL is not a rediss:// URL');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`REDIS_TLS_CA_FILE: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (!text.includes('-----BEGIN CERTIFICATE-----')) throw new Error(`REDIS_TLS_CA_FILE: ${file} holds no PEM certificate`);
  return text;
}
