import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { Injectable, type OnModuleInit } from '@nestjs/common';

/** OWASP Password Storage Cheat Sheet, scrypt: N=2^17, r=8, p=1 (128 MiB per hash). */
export const SCRYPT_PARAMS = { N: 2 ** 17, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
/** 128 * N * r bytes plus headroom; node's default maxmem (32 MiB) is below what N=2^17 needs. */
const maxmemFor = (N: number, r: number): number => 128 * N * r * 2;

function derive(password: string, salt: Buffer, params: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { N: params.N, r: params.r, p: params.p, maxmem: maxmemFor(params.N, params.r) };
  return new Promise((resolve, reject) => scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key))));
}

/**
 * Hashes as `$scrypt$ln=17,r=8,p=1$<salt b64>$<hash b64>` (PHC string format), so stored hashes
 * keep working when the parameters are raised later. Verification compares in constant time.
 */
@Injectable()
export class PasswordHasher implements OnModuleInit {
  private dummy: Promise<string> | undefined;

  /** Computed at boot so the first unknown-user login is not slower than the others. */
  async onModuleInit(): Promise<void> {
    await this.dummyHash();
  }

  async hash(password: string): Promise<string> {
    const salt = randomBytes(SALT_LENGTH);
    const key = await derive(password, salt, SCRYPT_PARAMS);
    return `$scrypt$ln=${Math.log2(SCRYPT_PARAMS.N)},r=${SCRYPT_PARAMS.r},p=${SCRYPT_PARAMS.p}$${salt.toString('base64')}$${key.toString('base64')}`;
  }

  async verify(password: string, stored: string): Promise<boolean> {
    const parsed = parse(stored);
    if (parsed === undefined) return false;
    const key = await derive(password, parsed.salt, parsed.params);
    return key.length === parsed.key.length && timingSafeEqual(key, parsed.key);
  }

  /**
   * A hash of a random password, for logins of unknown users: verifying against it costs the same
   * as a real verification, so response time does not tell which emails exist.
   */
  dummyHash(): Promise<string> {
    this.dummy ??= this.hash(randomBytes(24).toString('base64'));
    return this.dummy;
  }
}

function parse(stored: string): { params: { N: number; r: number; p: number }; salt: Buffer; key: Buffer } | undefined {
  const match = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+)$/.exec(stored);
  if (match === null) return undefined;
  const [, ln, r, p, salt, key] = match;
  return { params: { N: 2 ** Number(ln), r: Number(r), p: Number(p) }, salt: Buffer.from(salt!, 'base64'), key: Buffer.from(key!, 'base64') };
}
