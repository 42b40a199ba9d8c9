import 'reflect-metadata';
import { randomBytes, randomUUID } from 'node:crypto';
import { DataSource, QueryFailedError } from 'typeorm';
import { AuditLogEntity } from './audit/audit-log.entity';
import { ConfigError } from './config/config-error';
import { loadDatabaseConfig } from './config/control-plane-config';
import { dataSourceOptions } from './database/data-source-options';
import { migrate } from './migrate';
import { PasswordHasher } from './users/password-hasher';
import { UserEntity } from './users/user.entity';

export interface CreateAdminOptions {
  dataDir: string;
  env?: NodeJS.ProcessEnv;
}

/** Thrown when the email already has an account. */
export class EmailTakenError extends Error {
  constructor(email: string) {
    super(`a user with the email ${email} already exists`);
    this.name = 'EmailTakenError';
  }
}

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;

/**
 * `gateway init`: creates an admin with a generated password (migrating the database first) and
 * returns the password, which is shown once and stored only as a scrypt hash.
 */
export async function createAdmin(options: CreateAdminOptions, email: string): Promise<{ email: string; password: string }> {
  const normalized = email.trim().toLowerCase();
  if (!EMAIL.test(normalized)) throw new ConfigError([{ variable: 'email', message: 'is not an email address' }]);
  const database = loadDatabaseConfig(options.env ?? process.env, options.dataDir);
  const password = randomBytes(18).toString('base64url');
  const passwordHash = await new PasswordHasher().hash(password);
  await migrate(options);
  const dataSource = new DataSource(dataSourceOptions(database));
  await dataSource.initialize();
  try {
    await dataSource.transaction(async (manager) => {
      await manager.getRepository(UserEntity).insert({ id: randomUUID(), email: normalized, passwordHash, role: 'admin', createdAt: new Date() });
      await manager.getRepository(AuditLogEntity).insert({ id: randomUUID(), at: new Date(), actor: 'system', action: 'user.create', target: normalized, ip: null, details: { role: 'admin', reason: 'gateway init' } });
    });
  } catch (error) {
    if (error instanceof QueryFailedError && /unique|duplicate/i.test(error.message)) throw new EmailTakenError(normalized);
    throw error;
  } finally {
    await dataSource.destroy();
  }
  return { email: normalized, password };
}
