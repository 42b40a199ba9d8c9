import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { QueryFailedError, type Repository } from 'typeorm';
import { DomainError } from '../common/domain-error';
import { PasswordHasher } from './password-hasher';
import { UserEntity, type UserRole } from './user.entity';

/** A user as other modules see it (never the entity, never the hash). */
export interface UserAccount {
  id: string;
  email: string;
  role: UserRole;
  createdAt: string;
  disabled: boolean;
}

/** What a token of the user must match to be accepted (JwtStrategy). */
export interface TokenStanding {
  disabled: boolean;
  tokenGeneration: number;
}

export function toUserAccount(entity: UserEntity): UserAccount {
  return { id: entity.id, email: entity.email, role: entity.role, createdAt: entity.createdAt.toISOString(), disabled: entity.disabled };
}

/** Creating and looking up accounts. Emails are compared lower-cased. */
@Injectable()
export class UserAccountsService {
  constructor(
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    private readonly hasher: PasswordHasher,
  ) {}

  async create(input: { email: string; password: string; role: UserRole }): Promise<UserAccount> {
    const entity = this.users.create({
      id: randomUUID(),
      email: input.email.trim().toLowerCase(),
      passwordHash: await this.hasher.hash(input.password),
      role: input.role,
      createdAt: new Date(),
      disabled: false,
      tokenGeneration: 0,
    });
    try {
      await this.users.insert(entity);
    } catch (error) {
      if (error instanceof QueryFailedError && /unique|duplicate/i.test(error.message)) throw new DomainError('EMAIL_EXISTS');
      throw error;
    }
    return toUserAccount(entity);
  }

  /** Newest last (creation order), with the total for the list envelope. */
  async list(limit: number, offset: number): Promise<{ items: UserAccount[]; total: number }> {
    const [entities, total] = await this.users.findAndCount({ order: { createdAt: 'ASC', id: 'ASC' }, take: limit, skip: offset });
    return { items: entities.map(toUserAccount), total };
  }

  async findById(id: string): Promise<UserAccount | undefined> {
    const entity = await this.users.findOneBy({ id });
    return entity === null ? undefined : toUserAccount(entity);
  }

  /** Undefined for a deleted user. */
  async tokenStanding(id: string): Promise<TokenStanding | undefined> {
    const entity = await this.users.findOne({ where: { id }, select: { disabled: true, tokenGeneration: true } });
    return entity === null ? undefined : { disabled: entity.disabled, tokenGeneration: entity.tokenGeneration };
  }

  async hasAdmin(): Promise<boolean> {
    return (await this.users.countBy({ role: 'admin' })) > 0;
  }

  /** The account, its hash and token generation, for the login check only. */
  async findCredentials(email: string): Promise<{ account: UserAccount; passwordHash: string; tokenGeneration: number } | undefined> {
    const entity = await this.users.findOneBy({ email: email.trim().toLowerCase() });
    return entity === null ? undefined : { account: toUserAccount(entity), passwordHash: entity.passwordHash, tokenGeneration: entity.tokenGeneration };
  }
}
