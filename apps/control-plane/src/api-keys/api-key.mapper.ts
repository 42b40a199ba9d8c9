import type { ApiKeyDigest } from '@gateway/events';
import type { ApiKeyEntity } from './api-key.entity';
import { statusOf, type ApiKeyStatus } from './api-key-status';

/** What the API shows of a key: never the key, never its digest. */
export interface ApiKeyResponse {
  id: string;
  name: string;
  /** The key's first characters, to recognise it. */
  prefix: string;
  status: ApiKeyStatus;
  /** Id of the admin who created it. */
  createdBy: string;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
}

/** The create response: the only time the key itself is shown. */
export interface CreatedApiKey extends ApiKeyResponse {
  key: string;
}

export function toApiKeyResponse(entity: ApiKeyEntity, now = new Date()): ApiKeyResponse {
  return {
    id: entity.id,
    name: entity.name,
    prefix: entity.prefix,
    status: statusOf(entity, now),
    createdBy: entity.createdBy,
    createdAt: entity.createdAt.toISOString(),
    expiresAt: entity.expiresAt?.toISOString() ?? null,
    revokedAt: entity.revokedAt?.toISOString() ?? null,
  };
}

/** A key as data planes receive it in the route snapshot (the digest, never the key). */
export function toApiKeyDigest(entity: ApiKeyEntity): ApiKeyDigest {
  return {
    keyId: entity.id,
    digest: entity.digest,
    name: entity.name,
    ...(entity.expiresAt === null ? {} : { expiresAt: entity.expiresAt.toISOString() }),
  };
}
