import { Injectable, Logger } from '@nestjs/common';
import { AuditLogService } from '../audit/audit-log.service';
import { DomainError } from '../common/domain-error';
import { PasswordHasher } from '../users/password-hasher';
import { UserAccountsService } from '../users/user-accounts.service';
import { TokenIssuer } from './token-issuer.service';

export interface LoginResult {
  token: string;
  expiresIn: number;
}

/**
 * Password login. An unknown email and a wrong password do the same work (a scrypt verification,
 * against a dummy hash for the unknown user) and answer the same 401, so neither the answer nor
 * its timing tells which emails exist.
 */
@Injectable()
export class LoginService {
  private readonly logger = new Logger('Auth');

  constructor(
    private readonly accounts: UserAccountsService,
    private readonly hasher: PasswordHasher,
    private readonly tokens: TokenIssuer,
    private readonly audit: AuditLogService,
  ) {}

  async login(email: string, password: string, ip: string | undefined): Promise<LoginResult> {
    const found = await this.accounts.findCredentials(email);
    const hash = found?.passwordHash ?? (await this.hasher.dummyHash());
    const valid = await this.hasher.verify(password, hash);
    // A disabled user gets the same answer as a wrong password: it tells nothing about the account.
    if (found === undefined || !valid || found.account.disabled) {
      // Never the password; the attempted email is kept (truncated) to spot credential stuffing.
      const details = valid && found?.account.disabled === true ? { reason: 'disabled' } : undefined;
      await this.audit.record({ actor: 'anonymous', action: 'auth.login.failed', target: email.slice(0, 255), ip, ...(details === undefined ? {} : { details }) });
      this.logger.warn(`login failed for ${JSON.stringify(email.slice(0, 320))} from ${ip ?? 'unknown address'}`);
      throw new DomainError('INVALID_CREDENTIALS');
    }
    const issued = this.tokens.issue(found.account, found.tokenGeneration);
    await this.audit.record({ actor: found.account.email, action: 'auth.login', target: found.account.id, ip, details: { jti: issued.jti } });
    this.logger.log(`login of ${found.account.email} from ${ip ?? 'unknown address'}`);
    return { token: issued.token, expiresIn: issued.expiresIn };
  }
}
