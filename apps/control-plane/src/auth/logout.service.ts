import { Injectable, Logger } from '@nestjs/common';
import { AuditLogService } from '../audit/audit-log.service';
import type { AuthenticatedUser } from './authenticated-user';
import { TokenRevocationService } from './token-revocation.service';

/** `POST /api/auth/logout`: the presented token is refused from now until it expires. */
@Injectable()
export class LogoutService {
  private readonly logger = new Logger('Auth');

  constructor(
    private readonly revocations: TokenRevocationService,
    private readonly audit: AuditLogService,
  ) {}

  async logout(user: AuthenticatedUser, ip: string | undefined): Promise<void> {
    await this.revocations.revoke(user.jti, user.expiresAt);
    await this.audit.record({ actor: user.email, action: 'auth.logout', target: user.id, ip, details: { jti: user.jti } });
    this.logger.log(`logout of ${user.email} from ${ip ?? 'unknown address'}`);
  }
}
