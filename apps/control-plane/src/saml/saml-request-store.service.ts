import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { LessThan, type Repository } from 'typeorm';
import { SamlRequestEntity } from './saml-request.entity';

/** How long a started login may take at the IdP (node-saml's default of 8 h is far too long). */
export const SAML_REQUEST_TTL_MS = 10 * 60_000;

/** What a logout request row holds instead of a browser binding: it answers a LogoutResponse only. */
export const LOGOUT_REQUEST = 'logout';

export interface OpenedRequest {
  requestId: string;
  relayState: string;
}

/**
 * Issued AuthnRequests in the database, so a response can land on any control-plane instance.
 * Consuming is a delete that only one caller can win: a request answers at most one response.
 */
@Injectable()
export class SamlRequestStore {
  constructor(@InjectRepository(SamlRequestEntity) private readonly requests: Repository<SamlRequestEntity>) {}

  async open(returnUrl: string, browserBinding: string): Promise<OpenedRequest> {
    await this.requests.delete({ expiresAt: LessThan(new Date()) });
    // A SAML ID must not start with a digit (xs:ID); 20 random bytes are unguessable.
    const opened = { requestId: `_${randomBytes(20).toString('hex')}`, relayState: randomBytes(24).toString('base64url') };
    await this.requests.insert({ id: opened.requestId, relayState: opened.relayState, returnUrl, browserBinding, expiresAt: new Date(Date.now() + SAML_REQUEST_TTL_MS) });
    return opened;
  }

  /** The request a RelayState stands for, removed; undefined when unknown, used or expired. */
  async consume(relayState: unknown): Promise<SamlRequestEntity | undefined> {
    if (typeof relayState !== 'string' || relayState.length === 0 || relayState.length > 64) return undefined;
    const found = await this.requests.findOneBy({ relayState });
    if (found === null) return undefined;
    const deleted = await this.requests.delete({ id: found.id });
    if (deleted.affected !== 1) return undefined;
    return found.expiresAt.getTime() > Date.now() ? found : undefined;
  }
}
