import { createHmac, createSign, type KeyObject } from 'node:crypto';

/** Hand-made JWTs, so the tests can forge exactly the attacks a library would refuse to produce. */
const b64url = (value: string | Buffer): string => Buffer.from(value).toString('base64url');

export function unsignedParts(header: Record<string, unknown>, claims: Record<string, unknown>): string {
  return `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
}

export function hmacToken(secret: string | Buffer, claims: Record<string, unknown>, header: Record<string, unknown> = {}, alg = 'HS256'): string {
  const input = unsignedParts({ alg, typ: 'JWT', ...header }, claims);
  const hash = { HS256: 'sha256', HS384: 'sha384', HS512: 'sha512' }[alg] ?? 'sha256';
  return `${input}.${createHmac(hash, secret).update(input).digest('base64url')}`;
}

export function rsaToken(privateKey: KeyObject, claims: Record<string, unknown>, header: Record<string, unknown> = {}): string {
  const input = unsignedParts({ alg: 'RS256', typ: 'JWT', ...header }, claims);
  return `${input}.${createSign('RSA-SHA256').update(input).sign(privateKey).toString('base64url')}`;
}

export function noneToken(claims: Record<string, unknown>): string {
  return `${unsignedParts({ alg: 'none', typ: 'JWT' }, claims)}.`;
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);
