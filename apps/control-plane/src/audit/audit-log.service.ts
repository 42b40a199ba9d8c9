import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { AuditLogEntity } from './audit-log.entity';

export interface AuditEntry {
  /** A user's email, `system` or `anonymous`. */
  actor: string;
  action: string;
  target?: string;
  ip?: string;
  /** Never secrets: no passwords, tokens or keys. */
  details?: Record<string, unknown>;
}

export interface AuditRecord {
  id: string;
  at: string;
  actor: string;
  action: string;
  target: string | null;
  ip: string | null;
  details: Record<string, unknown> | null;
}

function toAuditRecord(entity: AuditLogEntity): AuditRecord {
  return { id: entity.id, at: entity.at.toISOString(), actor: entity.actor, action: entity.action, target: entity.target, ip: entity.ip, details: entity.details };
}

/** Appends to the audit log; pass the caller's transaction manager to record atomically with a change. */
@Injectable()
export class AuditLogService {
  constructor(@InjectRepository(AuditLogEntity) private readonly entries: Repository<AuditLogEntity>) {}

  async record(entry: AuditEntry, manager?: EntityManager): Promise<void> {
    const repository = manager ? manager.getRepository(AuditLogEntity) : this.entries;
    const row: QueryDeepPartialEntity<AuditLogEntity> = {
      id: randomUUID(),
      at: new Date(),
      actor: entry.actor,
      action: entry.action,
      target: entry.target?.slice(0, 255) ?? null,
      ip: entry.ip?.slice(0, 64) ?? null,
      // simple-json column: TypeORM's deep-partial type cannot express an open record.
      details: (entry.details ?? null) as QueryDeepPartialEntity<AuditLogEntity>['details'],
    };
    await repository.insert(row);
  }

  async list(limit: number, offset: number): Promise<{ items: AuditRecord[]; total: number }> {
    const [entities, total] = await this.entries.findAndCount({ order: { at: 'DESC', id: 'ASC' }, take: limit, skip: offset });
    return { items: entities.map(toAuditRecord), total };
  }
}
