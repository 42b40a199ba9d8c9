import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, LessThan, type Repository } from 'typeorm';
import { ManagementSessionEntity } from './management-session.entity';
import { SessionServiceClient, type NewSession, type SessionValidity } from './session-service.client';
import { SessionServiceConfigSource } from './session-service-config';

/** Valid answers remembered at most; when full, the cache starts over (a bound, not an LRU). */
const MAX_CACHED = 10_000;

/**
 * Management sessions (decision 23). With a session service (the `sessionService` settings
 * section when enabled, else `authentication.provider` and `apiUrl` in proxy.yml), the service
 * creates, validates and revokes them (the local row is a mirror for single logout); without, the
 * local row is the session. A valid answer is reused for at most the configured cache TTL seconds and never past the session's expiry; a revocation here
 * drops it at once (other instances: within that TTL). Service trouble is AUTH_SERVICE_UNAVAILABLE.
 */
@Injectable()
export class ManagementSessions {
  private readonly validUntil = new Map<string, number>();

  constructor(
    @InjectRepository(ManagementSessionEntity) private readonly sessions: Repository<ManagementSessionEntity>,
    private readonly config: SessionServiceConfigSource,
  ) {}

  async create(session: NewSession): Promise<{ sessionId: string; expiresAt: Date }> {
    const { service } = await this.config.current();
    const created = service === undefined ? { sessionId: randomBytes(24).toString('base64url'), expiresAt: session.expiresAt } : await new SessionServiceClient(service).create(session);
    await this.sessions.delete({ expiresAt: LessThan(new Date()) });
    await this.sessions.insert({
      id: created.sessionId,
      userId: session.userId,
      nameId: session.nameId ?? null,
      nameIdFormat: session.nameIdFormat ?? null,
      sessionIndex: session.sessionIndex ?? null,
      expiresAt: created.expiresAt,
      revokedAt: null,
      createdAt: new Date(),
    });
    return created;
  }

  /** Whether the session is still valid; throws AUTH_SERVICE_UNAVAILABLE when the service cannot say. */
  async isValid(sessionId: string): Promise<boolean> {
    const cached = this.validUntil.get(sessionId);
    if (cached !== undefined && cached > Date.now()) return true;
    this.validUntil.delete(sessionId);
    const { service, cacheTtlSeconds } = await this.config.current();
    const validity: SessionValidity = service === undefined ? await this.localValidity(sessionId) : await new SessionServiceClient(service).validate(sessionId);
    if (!validity.valid) return false;
    const until = Math.min(Date.now() + cacheTtlSeconds * 1000, validity.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY);
    if (until > Date.now()) {
      if (this.validUntil.size >= MAX_CACHED) this.validUntil.clear();
      this.validUntil.set(sessionId, until);
    }
    return true;
  }

  async revoke(sessionId: string): Promise<void> {
    this.validUntil.delete(sessionId);
    const { service } = await this.config.current();
    if (service !== undefined) await new SessionServiceClient(service).revoke(sessionId);
    await this.sessions.update({ id: sessionId, revokedAt: IsNull() }, { revokedAt: new Date() });
  }

  /** Single logout from the IdP: every open session of that subject (of that IdP session when named). */
  async revokeForIdpSubject(nameId: string, sessionIndex: string | undefined): Promise<{ revoked: number; userIds: string[] }> {
    const open = await this.sessions.findBy({ nameId, revokedAt: IsNull(), ...(sessionIndex === undefined ? {} : { sessionIndex }) });
    for (const session of open) await this.revoke(session.id);
    return { revoked: open.length, userIds: [...new Set(open.map((s) => s.userId))] };
  }

  /** The IdP's subject of a session, for an SP-initiated LogoutRequest. */
  async idpSubject(sessionId: string): Promise<{ nameId: string; nameIdFormat?: string; sessionIndex?: string } | undefined> {
    const found = await this.sessions.findOneBy({ id: sessionId });
    if (found?.nameId === null || found?.nameId === undefined) return undefined;
    return { nameId: found.nameId, ...(found.nameIdFormat === null ? {} : { nameIdFormat: found.nameIdFormat }), ...(found.sessionIndex === null ? {} : { sessionIndex: found.sessionIndex }) };
  }

  private async localValidity(sessionId: string): Promise<SessionValidity> {
    const found = await this.sessions.findOneBy({ id: sessionId });
    if (found === null || found.revokedAt !== null || found.expiresAt.getTime() <= Date.now()) return { valid: false };
    return { valid: true, expiresAt: found.expiresAt };
  }
}
