import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { AuditLogService } from '../audit/audit-log.service';
import { CONTROL_PLANE_CONFIG } from '../config/config.tokens';
import type { ControlPlaneConfig } from '../config/control-plane-config';
import { UserAccountsService } from './user-accounts.service';

/** First start: the admin of ADMIN_EMAIL / ADMIN_PASSWORD, only while no admin exists. */
@Injectable()
export class InitialAdminService implements OnApplicationBootstrap {
  private readonly logger = new Logger('Users');

  constructor(
    @Inject(CONTROL_PLANE_CONFIG) private readonly config: ControlPlaneConfig,
    private readonly accounts: UserAccountsService,
    private readonly audit: AuditLogService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const admin = this.config.initialAdmin;
    if (admin === undefined || (await this.accounts.hasAdmin())) return;
    const account = await this.accounts.create({ email: admin.email, password: admin.password, role: 'admin' });
    await this.audit.record({ actor: 'system', action: 'user.create', target: account.email, details: { role: 'admin', reason: 'ADMIN_EMAIL' } });
    this.logger.log(`created the first admin ${account.email} from ADMIN_EMAIL`);
  }
}
