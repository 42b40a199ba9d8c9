import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { QueryFailedError, type Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { AuditLogService, type AuditEntry } from '../audit/audit-log.service';
import { DomainError } from '../common/domain-error';
import { TransactionRunner } from '../database/transaction-runner';
import type { SettingsDocument } from './settings-section';
import { SettingsSectionRegistry } from './settings-sections.registry';
import { SettingsVersionEntity } from './settings-version.entity';

/** A saved document (secrets sealed) and who saved it when. Version 0: nothing saved yet, the defaults. */
export interface StoredSettings {
  version: number;
  changedAt: string | null;
  actor: string | null;
  restoredFrom: number | null;
  document: SettingsDocument;
}

export interface SettingsVersionSummary {
  version: number;
  changedAt: string;
  actor: string;
  restoredFrom: number | null;
}

/** The settings_versions table: append-only; reads fill sections saved before they existed with their defaults. */
@Injectable()
export class SettingsStore {
  constructor(
    @InjectRepository(SettingsVersionEntity) private readonly versions: Repository<SettingsVersionEntity>,
    private readonly sections: SettingsSectionRegistry,
    private readonly transactions: TransactionRunner,
    private readonly audit: AuditLogService,
  ) {}

  async current(): Promise<StoredSettings> {
    const [latest] = await this.versions.find({ order: { version: 'DESC' }, take: 1 });
    return latest === undefined ? { version: 0, changedAt: null, actor: null, restoredFrom: null, document: this.withDefaults({}) } : this.toStored(latest);
  }

  async find(version: number): Promise<StoredSettings | undefined> {
    const entity = await this.versions.findOneBy({ version });
    return entity === null ? undefined : this.toStored(entity);
  }

  /** Newest first. */
  async list(limit: number, offset: number): Promise<{ items: SettingsVersionSummary[]; total: number }> {
    const [entities, total] = await this.versions.findAndCount({ select: { version: true, changedAt: true, actor: true, restoredFrom: true }, order: { version: 'DESC' }, take: limit, skip: offset });
    return { items: entities.map((e) => ({ version: e.version, changedAt: e.changedAt.toISOString(), actor: e.actor, restoredFrom: e.restoredFrom })), total };
  }

  /**
   * Saves `document` as the next version, with its audit entry in the same transaction. Two
   * control planes saving at once would take the same number: the primary key refuses the second
   * (409 CONFLICT, the client reads and tries again) rather than one silently overwriting the other.
   */
  async append(document: SettingsDocument, actor: string, restoredFrom: number | null, auditEntry: (version: number) => AuditEntry): Promise<number> {
    try {
      return await this.transactions.run(async (tx) => {
        const repository = tx.getRepository(SettingsVersionEntity);
        const version = ((await repository.maximum('version')) ?? 0) + 1;
        // simple-json column: TypeORM's deep-partial type cannot express an open record.
        await repository.insert({ version, document: document as QueryDeepPartialEntity<SettingsVersionEntity>['document'], changedAt: new Date(), actor, restoredFrom });
        await this.audit.record(auditEntry(version), tx);
        return version;
      });
    } catch (error) {
      if (error instanceof QueryFailedError && /unique|duplicate|primary/i.test(error.message)) throw new DomainError('CONFLICT', 'Settings were changed at the same time; read them again and retry');
      throw error;
    }
  }

  private toStored(entity: SettingsVersionEntity): StoredSettings {
    return { version: entity.version, changedAt: entity.changedAt.toISOString(), actor: entity.actor, restoredFrom: entity.restoredFrom, document: this.withDefaults(entity.document) };
  }

  /** Sections (or fields) added after a version was saved read as their defaults. */
  private withDefaults(document: SettingsDocument): SettingsDocument {
    const out: SettingsDocument = {};
    for (const section of this.sections.all()) out[section.key] = { ...(section.defaults() as Record<string, unknown>), ...document[section.key] };
    return out;
  }
}
