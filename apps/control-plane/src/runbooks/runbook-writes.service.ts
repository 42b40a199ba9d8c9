import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Not, type Repository } from 'typeorm';
import type { AuditActor } from '../audit/audit-actor';
import { AuditLogService } from '../audit/audit-log.service';
import { DomainError } from '../common/domain-error';
import { RunbookActionRegistry } from './runbook-action.registry';
import { readRunbook, type RunbookDefinition } from './runbook-definition';
import { toRunbookResponse, type RunbookResponse } from './runbook.mapper';
import { RunbookEntity } from './runbook.entity';

/** Create, replace, patch and delete runbooks; each change validated whole and audited. */
@Injectable()
export class RunbookWrites {
  constructor(
    @InjectRepository(RunbookEntity) private readonly runbooks: Repository<RunbookEntity>,
    private readonly registry: RunbookActionRegistry,
    private readonly audit: AuditLogService,
  ) {}

  async create(raw: unknown, actor: AuditActor): Promise<RunbookResponse> {
    const definition = this.read(raw);
    await this.requireFreeName(definition.name);
    const now = new Date();
    const entity = await this.runbooks.save(this.runbooks.create({ id: randomUUID(), ...definition, createdAt: now, updatedAt: now }));
    await this.audit.record({ actor: actor.email, action: 'runbook.create', target: entity.id, ip: actor.ip, details: { name: entity.name } });
    return toRunbookResponse(entity);
  }

  async replace(id: string, raw: unknown, actor: AuditActor): Promise<RunbookResponse> {
    return this.save(await this.existing(id), this.read(raw), actor, 'runbook.update');
  }

  /** Merges the body over the stored runbook (top-level fields; `safety` merged one level), then validates the whole. */
  async patch(id: string, raw: unknown, actor: AuditActor): Promise<RunbookResponse> {
    const entity = await this.existing(id);
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw DomainError.fromFieldErrors([{ field: 'body', message: 'body must be a JSON object', code: 'VALIDATION_ERROR' }]);
    const current = toRunbookResponse(entity);
    const body = raw as Record<string, unknown>;
    const merged = { name: current.name, enabled: current.enabled, trigger: current.trigger, actions: current.actions, ...body, safety: { ...current.safety, ...(typeof body['safety'] === 'object' && body['safety'] !== null ? body['safety'] : {}) } };
    if (body['safety'] !== undefined && (typeof body['safety'] !== 'object' || body['safety'] === null)) merged.safety = body['safety'] as never;
    return this.save(entity, this.read(merged), actor, 'runbook.update');
  }

  async delete(id: string, actor: AuditActor): Promise<void> {
    const entity = await this.existing(id);
    await this.runbooks.delete({ id });
    await this.audit.record({ actor: actor.email, action: 'runbook.delete', target: id, ip: actor.ip, details: { name: entity.name } });
  }

  private async save(entity: RunbookEntity, definition: RunbookDefinition, actor: AuditActor, action: string): Promise<RunbookResponse> {
    await this.requireFreeName(definition.name, entity.id);
    Object.assign(entity, definition, { updatedAt: new Date() });
    const saved = await this.runbooks.save(entity);
    await this.audit.record({ actor: actor.email, action, target: entity.id, ip: actor.ip, details: { name: saved.name, enabled: saved.enabled } });
    return toRunbookResponse(saved);
  }

  private read(raw: unknown): RunbookDefinition {
    const read = readRunbook(raw, this.registry.units);
    if (!read.ok) throw DomainError.fromFieldErrors(read.errors);
    return read.value;
  }

  private async existing(id: string): Promise<RunbookEntity> {
    const entity = await this.runbooks.findOneBy({ id });
    if (entity === null) throw new DomainError('RUNBOOK_NOT_FOUND');
    return entity;
  }

  private async requireFreeName(name: string, exceptId?: string): Promise<void> {
    const taken = await this.runbooks.existsBy(exceptId === undefined ? { name } : { name, id: Not(exceptId) });
    if (taken) throw new DomainError('CONFLICT', 'A runbook with this name exists', { fields: [{ field: 'name', message: 'name is taken by another runbook', code: 'CONFLICT' }] });
  }
}
