import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, LessThan, type Repository } from 'typeorm';
import { CONTROL_PLANE_CONFIG } from '../config/config.tokens';
import type { ControlPlaneConfig } from '../config/control-plane-config';
import { LeasedInterval } from '../lease/leased-interval';
import { Lease } from '../lease/lease.service';
import { RevokedTokenEntity, subjectRevocationKey } from './revoked-token.entity';

/** Revocations outlive their token by nothing: once expired the token is refused anyway. */
const PRUNE_INTERVAL_MS = 60 * 60 * 1000;
/** The lease that makes one control-plane instance the pruner (docs/control-plane.md "Leases"). */
export const REVOCATION_PRUNE_LEASE = 'auth.revocation-prune';

/** Logout (decision 20): a token's jti is refused until the token expires; expired entries are pruned. */
@Injectable()
export class TokenRevocationService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Auth');
  private readonly schedule: LeasedInterval;

  constructor(
    @Inject(CONTROL_PLANE_CONFIG) config: Pick<ControlPlaneConfig, 'leases'>,
    lease: Lease,
    @InjectRepository(RevokedTokenEntity) private readonly revoked: Repository<RevokedTokenEntity>,
  ) {
    const { ttlMs } = config.leases;
    const job = () => this.prune().then(() => undefined, (error: unknown) => this.logger.warn(`pruning revoked tokens failed: ${String(error)}`));
    this.schedule = new LeasedInterval(lease, { name: REVOCATION_PRUNE_LEASE, ttlMs, intervalMs: PRUNE_INTERVAL_MS, job }, this.logger);
  }

  onModuleInit(): void {
    void this.schedule.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.schedule.stop();
  }

  async revoke(jti: string, expiresAt: Date): Promise<void> {
    // Idempotent: a second logout with the same token (or a race of two) is not an error.
    await this.revoked.upsert({ jti, expiresAt }, ['jti']);
    await this.prune();
  }

  isRevoked(jti: string, subject: string): Promise<boolean> {
    return this.revoked.existsBy({ jti: In([jti, subjectRevocationKey(subject)]) });
  }

  /** Deletes the revocations of tokens that have expired; returns how many. */
  async prune(now = new Date()): Promise<number> {
    const result = await this.revoked.delete({ expiresAt: LessThan(now) });
    return result.affected ?? 0;
  }
}

