import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { IsNull } from 'typeorm';
import { AuditLogService } from '../audit/audit-log.service';
import { RouteChanges } from '../cluster/route-changes.service';
import { DomainError } from '../common/domain-error';
import { CONTROL_PLANE_CONFIG } from '../config/config.tokens';
import type { ControlPlaneConfig } from '../config/control-plane-config';
import { ApiKeyEntity } from './api-key.entity';
import type { AuditActor } from '../audit/audit-actor';
import { newApiKey } from './api-key-material';
import { toApiKeyResponse, type CreatedApiKey } from './api-key.mapper';

/**
 * Creating and revoking keys. Both commit through RouteChanges with a `reloaded` change: the
 * revision is bumped in the same transaction and data planes fetch the snapshot that holds the new
 * set of digests. The key itself is returned once and appears in no log, audit entry or error.
 */
@Injectable()
export class ApiKeyWrites {
  private readonly logger = new Logger('ApiKeys');

  constructor(
    @Inject(CONTROL_PLANE_CONFIG) private readonly config: ControlPlaneConfig,
    private readonly changes: RouteChanges,
    private readonly audit: AuditLogService,
  ) {}

  async create(input: { name: string; expiresAt?: string }, actor: AuditActor): Promise<CreatedApiKey> {
    const secret = this.config.apiKeys.secret;
    if (secret === undefined) throw new DomainError('API_KEYS_NOT_CONFIGURED');
    const material = newApiKey(secret);
    const { result } = await this.changes.commit(async (tx) => {
      const repository = tx.getRepository(ApiKeyEntity);
      const entity = repository.create({
        id: randomUUID(),
        name: input.name,
        prefix: material.prefix,
        digest: material.digest,
        createdBy: actor.id,
        createdAt: new Date(),
        expiresAt: input.expiresAt === undefined ? null : new Date(input.expiresAt),
        revokedAt: null,
      });
      await repository.insert(entity);
      const details = { name: entity.name, prefix: entity.prefix, expiresAt: entity.expiresAt?.toISOString() ?? null };
      await this.audit.record({ actor: actor.email, action: 'api-key.create', target: entity.id, ip: actor.ip, details }, tx);
      return { result: entity, change: { kind: 'reloaded' } };
    });
    this.logger.log(`API key ${result.id} (${result.prefix}...) created by ${actor.email}`);
    return { ...toApiKeyResponse(result), key: material.key };
  }

  /**
   * Sets revokedAt once; revoking a revoked key again changes nothing (204, no new revision).
   * The conditional update makes two concurrent revocations record one.
   */
  async revoke(id: string, actor: AuditActor): Promise<void> {
    const { result: revoked } = await this.changes.commit(async (tx) => {
      const repository = tx.getRepository(ApiKeyEntity);
      const update = await repository.update({ id, revokedAt: IsNull() }, { revokedAt: new Date() });
      if ((update.affected ?? 0) === 0) {
        if (!(await repository.existsBy({ id }))) throw new DomainError('API_KEY_NOT_FOUND');
        return { result: false };
      }
      await this.audit.record({ actor: actor.email, action: 'api-key.revoke', target: id, ip: actor.ip }, tx);
      return { result: true, change: { kind: 'reloaded' } };
    });
    if (revoked) this.logger.log(`API key ${id} revoked by ${actor.email}`);
  }
}
