import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { DomainError } from '../common/domain-error';
import { ApiKeyEntity } from './api-key.entity';
import { whereStatus, type ApiKeyStatus } from './api-key-status';
import { toApiKeyResponse, type ApiKeyResponse } from './api-key.mapper';

/** Listing and reading keys: never the key, never the digest (toApiKeyResponse). */
@Injectable()
export class ApiKeyReads {
  constructor(@InjectRepository(ApiKeyEntity) private readonly keys: Repository<ApiKeyEntity>) {}

  /** Creation order (oldest first, as users and routes), with the total for the list envelope. */
  async list(query: { limit: number; offset: number; status?: ApiKeyStatus }): Promise<{ items: ApiKeyResponse[]; total: number }> {
    const now = new Date();
    const [entities, total] = await this.keys.findAndCount({
      ...(query.status === undefined ? {} : { where: whereStatus(query.status, now) }),
      order: { createdAt: 'ASC', id: 'ASC' },
      take: query.limit,
      skip: query.offset,
    });
    return { items: entities.map((entity) => toApiKeyResponse(entity, now)), total };
  }

  async get(id: string): Promise<ApiKeyResponse> {
    const entity = await this.keys.findOneBy({ id });
    if (entity === null) throw new DomainError('API_KEY_NOT_FOUND');
    return toApiKeyResponse(entity);
  }
}
