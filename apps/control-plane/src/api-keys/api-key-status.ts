import { IsNull, LessThanOrEqual, MoreThan, Not, type FindOptionsWhere } from 'typeorm';
import type { ApiKeyEntity } from './api-key.entity';

export const API_KEY_STATUSES = ['active', 'expired', 'revoked'] as const;
/** `revoked` wins over `expired`: a revoked key stays revoked whatever its expiry. */
export type ApiKeyStatus = (typeof API_KEY_STATUSES)[number];

export function statusOf(entity: Pick<ApiKeyEntity, 'expiresAt' | 'revokedAt'>, now: Date): ApiKeyStatus {
  if (entity.revokedAt !== null) return 'revoked';
  if (entity.expiresAt !== null && entity.expiresAt.getTime() <= now.getTime()) return 'expired';
  return 'active';
}

/** The same rule as statusOf, as query conditions (alternatives), for lists and snapshots. */
export function whereStatus(status: ApiKeyStatus, now: Date): Array<FindOptionsWhere<ApiKeyEntity>> {
  switch (status) {
    case 'active':
      return [
        { revokedAt: IsNull(), expiresAt: IsNull() },
        { revokedAt: IsNull(), expiresAt: MoreThan(now) },
      ];
    case 'expired':
      return [{ revokedAt: IsNull(), expiresAt: LessThanOrEqual(now) }];
    case 'revoked':
      return [{ revokedAt: Not(IsNull()) }];
  }
}
