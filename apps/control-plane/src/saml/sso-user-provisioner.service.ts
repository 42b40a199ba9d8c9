import { randomBytes, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { PasswordHasher } from '../users/password-hasher';
import { toUserAccount, type UserAccount } from '../users/user-accounts.service';
import { UserEntity, type UserRole } from '../users/user.entity';

/**
 * The account behind an SSO login: created on the first one, its role set from the IdP's
 * groups at every login (the IdP is the source of truth for who is an admin).
 */
@Injectable()
export class SsoUserProvisioner {
  constructor(
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    private readonly hasher: PasswordHasher,
  ) {}

  async provision(email: string, role: UserRole): Promise<{ account: UserAccount; created: boolean; previousRole?: UserRole }> {
    const normalized = email.trim().toLowerCase();
    const existing = await this.users.findOneBy({ email: normalized });
    if (existing !== null) {
      const previousRole = existing.role;
      if (previousRole !== role) await this.users.update({ id: existing.id }, { role });
      return { account: toUserAccount({ ...existing, role }), created: false, previousRole };
    }
    // No password: a random one nobody knows, so the account signs in only through the IdP.
    const entity = this.users.create({ id: randomUUID(), email: normalized, passwordHash: await this.hasher.hash(randomBytes(32).toString('base64url')), role, createdAt: new Date() });
    await this.users.insert(entity);
    return { account: toUserAccount(entity), created: true };
  }
}
