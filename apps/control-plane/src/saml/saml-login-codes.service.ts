import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { LessThan, type Repository } from 'typeorm';
import { SamlLoginCodeEntity } from './saml-login-code.entity';

export const LOGIN_CODE_TTL_MS = 60_000;

/** The IdP's subject and session of a login: the management session keeps them for single logout. */
export interface IdpSession {
  nameId: string;
  nameIdFormat?: string;
  sessionIndex?: string;
}

export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/**
 * One-time codes for browsers: the callback redirects with a code, never a token, and only the
 * browser holding the cookie set at initiate can exchange it, once, within 60 s.
 */
@Injectable()
export class SamlLoginCodes {
  constructor(@InjectRepository(SamlLoginCodeEntity) private readonly codes: Repository<SamlLoginCodeEntity>) {}

  async issue(login: { userId: string; name: string; browserBinding: string; idp: IdpSession }): Promise<string> {
    await this.codes.delete({ expiresAt: LessThan(new Date()) });
    const code = randomBytes(32).toString('base64url');
    await this.codes.insert({ codeHash: sha256(code), browserBinding: login.browserBinding, userId: login.userId, name: login.name.slice(0, 320), nameId: login.idp.nameId, nameIdFormat: login.idp.nameIdFormat ?? null, sessionIndex: login.idp.sessionIndex ?? null, expiresAt: new Date(Date.now() + LOGIN_CODE_TTL_MS) });
    return code;
  }

  /** The login a code stands for, removed; undefined when unknown, used, expired or from another browser. */
  async redeem(code: unknown, browserCookie: string | undefined): Promise<{ userId: string; name: string; idp: IdpSession } | undefined> {
    if (typeof code !== 'string' || code.length === 0 || code.length > 128 || browserCookie === undefined) return undefined;
    const found = await this.codes.findOneBy({ codeHash: sha256(code) });
    if (found === null) return undefined;
    const deleted = await this.codes.delete({ codeHash: found.codeHash });
    if (deleted.affected !== 1 || found.expiresAt.getTime() <= Date.now()) return undefined;
    const presented = Buffer.from(sha256(browserCookie), 'hex');
    const expected = Buffer.from(found.browserBinding, 'hex');
    if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) return undefined;
    return { userId: found.userId, name: found.name, idp: { nameId: found.nameId ?? '', ...(found.nameIdFormat === null ? {} : { nameIdFormat: found.nameIdFormat }), ...(found.sessionIndex === null ? {} : { sessionIndex: found.sessionIndex }) } };
  }
}
