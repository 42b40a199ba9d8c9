import { Inject, Injectable, Logger } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { AuditLogService } from '../audit/audit-log.service';
import { RevokedTokenEntity, subjectRevocationKey } from '../auth/revoked-token.entity';
import { DomainError } from '../common/domain-error';
import { CONTROL_PLANE_CONFIG } from '../config/config.tokens';
import { MAX_TOKEN_LIFETIME_SECONDS, type ControlPlaneConfig } from '../config/control-plane-config';
import { TransactionRunner } from '../database/transaction-runner';
import { passwordPolicyViolation } from './password-policy';
import type { AuditActor } from '../audit/audit-actor';
import { UserAccountsService, toUserAccount, type UserAccount } from './user-accounts.service';
import { UserEntity, type UserRole } from './user.entity';

/**
 * The admin use cases of `/api/users`: create (password policy), list, disable or enable, delete
 * (never the last enabled admin).
 */
@Injectable()
export class UserManagementService {
  private readonly logger = new Logger('Users');

  constructor(
    @Inject(CONTROL_PLANE_CONFIG) private readonly config: ControlPlaneConfig,
    private readonly accounts: UserAccountsService,
    private readonly transactions: TransactionRunner,
    private readonly audit: AuditLogService,
  ) {}

  async create(input: { email: string; password: string; role: UserRole }, actor: AuditActor): Promise<UserAccount> {
    const violation = passwordPolicyViolation(input.password, input.email);
    if (violation !== undefined) {
      throw new DomainError('VALIDATION_ERROR', violation, { fields: [{ field: 'password', message: violation, code: 'PASSWORD_POLICY' }] });
    }
    const account = await this.accounts.create(input);
    await this.audit.record({ actor: actor.email, action: 'user.create', target: account.email, ip: actor.ip, details: { id: account.id, role: account.role } });
    this.logger.log(`user ${account.email} (${account.role}) created by ${actor.email}`);
    return account;
  }

  list(limit: number, offset: number): Promise<{ items: UserAccount[]; total: number }> {
    return this.accounts.list(limit, offset);
  }

  /**
   * The admin count is read and the row deleted in one serializable transaction, so two admins
   * deleting each other at once cannot leave the gateway without an admin. The user's tokens are
   * revoked in the same transaction.
   */
  async delete(id: string, actor: AuditActor): Promise<void> {
    const deleted = await retryOnSerializationFailure(() => this.deleteOnce(id, actor));
    this.logger.log(`user ${deleted.email} (${deleted.role}) deleted by ${actor.email}`);
  }

  /**
   * Disabling refuses the user's tokens at once (the guard reads the flag and the bumped token
   * generation) and their password logins; enabling again does not revive tokens issued before.
   * Serializable like delete: two admins disabling each other must leave one enabled admin.
   */
  async setDisabled(id: string, disabled: boolean, actor: AuditActor): Promise<UserAccount> {
    const account = await retryOnSerializationFailure(() => this.setDisabledOnce(id, disabled, actor));
    this.logger.log(`user ${account.email} ${disabled ? 'disabled' : 'enabled'} by ${actor.email}`);
    return account;
  }

  private setDisabledOnce(id: string, disabled: boolean, actor: AuditActor): Promise<UserAccount> {
    return this.transactions.run(async (tx) => {
      const users = tx.getRepository(UserEntity);
      const entity = await users.findOneBy({ id });
      if (entity === null) throw new DomainError('USER_NOT_FOUND');
      if (entity.disabled === disabled) return toUserAccount(entity);
      if (disabled && entity.role === 'admin' && (await users.countBy({ role: 'admin', disabled: false })) <= 1) {
        throw new DomainError('LAST_ADMIN', 'The last admin cannot be disabled');
      }
      entity.disabled = disabled;
      if (disabled) entity.tokenGeneration += 1;
      await users.update({ id }, { disabled: entity.disabled, tokenGeneration: entity.tokenGeneration });
      await this.audit.record({ actor: actor.email, action: disabled ? 'user.disable' : 'user.enable', target: entity.email, ip: actor.ip, details: { id: entity.id } }, tx);
      return toUserAccount(entity);
    }, 'SERIALIZABLE');
  }

  private deleteOnce(id: string, actor: AuditActor): Promise<UserAccount> {
    return this.transactions.run(async (tx) => {
      const users = tx.getRepository(UserEntity);
      const entity = await users.findOneBy({ id });
      if (entity === null) throw new DomainError('USER_NOT_FOUND');
      // A disabled admin cannot administer: only enabled admins count.
      if (entity.role === 'admin' && !entity.disabled && (await users.countBy({ role: 'admin', disabled: false })) <= 1) throw new DomainError('LAST_ADMIN');
      await users.delete({ id });
      // Tokens already issued to the user stop working now, not when they expire; the longest
      // lifetime settings allow, since the lifetime may have been longer when one was issued.
      const until = new Date(Date.now() + Math.max(this.config.auth.tokenTtlSeconds, MAX_TOKEN_LIFETIME_SECONDS) * 1000);
      await tx.getRepository(RevokedTokenEntity).upsert({ jti: subjectRevocationKey(id), expiresAt: until }, ['jti']);
      await this.audit.record({ actor: actor.email, action: 'user.delete', target: entity.email, ip: actor.ip, details: { id: entity.id, role: entity.role } }, tx);
      return toUserAccount(entity);
    }, 'SERIALIZABLE');
  }
}

/** PostgreSQL aborts one of two conflicting serializable transactions (40001); run it again. */
async function retryOnSerializationFailure<T>(work: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      const code = error instanceof QueryFailedError ? (error.driverError as { code?: string } | undefined)?.code : undefined;
      if (attempt >= attempts || (code !== '40001' && code !== '40P01')) throw error;
    }
  }
}
