import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AuditEntry, AuditLogService } from '../audit/audit-log.service';
import { DomainError } from '../common/domain-error';
import { PasswordHasher } from '../users/password-hasher';
import type { UserAccount, UserAccountsService } from '../users/user-accounts.service';
import { LoginService } from './login.service';
import type { IssuedToken, TokenIssuer } from './token-issuer.service';

const ACCOUNT: UserAccount = { id: 'u1', email: 'ada@example.com', role: 'admin', createdAt: new Date(0).toISOString(), disabled: false };

async function setup() {
  const hasher = new PasswordHasher();
  const stored = await hasher.hash('the right password');
  const verified: string[] = [];
  const countingHasher = Object.assign(Object.create(hasher) as PasswordHasher, {
    verify: (password: string, hash: string) => (verified.push(hash), hasher.verify(password, hash)),
  });
  const accounts = { findCredentials: async (email: string) => (email === ACCOUNT.email ? { account: ACCOUNT, passwordHash: stored, tokenGeneration: 0 } : undefined) } as unknown as UserAccountsService;
  const audit: AuditEntry[] = [];
  const auditLog = { record: async (entry: AuditEntry) => void audit.push(entry) } as unknown as AuditLogService;
  const tokens = { issue: (): IssuedToken => ({ token: 't', expiresIn: 86400, expiresAt: new Date(Date.now() + 86_400_000), jti: 'j' }) } as unknown as TokenIssuer;
  return { service: new LoginService(accounts, countingHasher, tokens, auditLog), verified, audit, stored, dummy: await hasher.dummyHash() };
}

test('an unknown email and a wrong password both cost one scrypt verification and throw the same error', async () => {
  const { service, verified, audit, stored, dummy } = await setup();
  const errors: unknown[] = [];
  for (const email of ['nobody@example.com', ACCOUNT.email]) {
    await service.login(email, 'a wrong password', '127.0.0.1').catch((error: unknown) => errors.push(error));
  }
  assert.deepEqual(verified, [dummy, stored]);
  assert.equal(errors.length, 2);
  for (const error of errors) {
    assert.ok(error instanceof DomainError);
    assert.equal(error.code, 'INVALID_CREDENTIALS');
    assert.equal(error.message, (errors[0] as DomainError).message);
  }
  assert.deepEqual(audit.map((e) => [e.action, e.actor, e.ip]), [['auth.login.failed', 'anonymous', '127.0.0.1'], ['auth.login.failed', 'anonymous', '127.0.0.1']]);
  assert.ok(!JSON.stringify(audit).includes('a wrong password'));
});

test('the right password issues a token and audits the login', async () => {
  const { service, audit } = await setup();
  assert.deepEqual(await service.login(ACCOUNT.email, 'the right password', '10.0.0.1'), { token: 't', expiresIn: 86400 });
  assert.deepEqual(audit.map((e) => [e.action, e.actor, e.ip]), [['auth.login', ACCOUNT.email, '10.0.0.1']]);
});
