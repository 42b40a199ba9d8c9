import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, LessThan, type Repository } from 'typeorm';
import { RevokedTokenEntity, subjectRevocationKey } from './revoked-token.entity';

/** Revocations outlive their token by nothing: once expired the token is refused anyway. */
const PRUNE_INTERVAL_MS = 60 * 60 * 1000;

/** Logout (decision 20): a token's jti is refused until the token expires; expired entries are pruned. */
@Injectable()
export class TokenRevocationService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Auth');
  private timer: NodeJS.Timeout | undefined;

  constructor(@InjectRepository(RevokedTokenEntity) private readonly revoked: Repository<RevokedTokenEntity>) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.prune().catch((error: unknown) => this.logger.warn(`pruning revoked tokens failed: ${String(error)}`)), PRUNE_INTERVAL_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
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

