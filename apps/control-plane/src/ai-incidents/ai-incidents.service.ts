import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { FindOptionsWhere, Repository } from 'typeorm';
import type { AuditActor } from '../audit/audit-actor';
import { AuditLogService } from '../audit/audit-log.service';
import { DomainError } from '../common/domain-error';
import { AiIncidentEntity, type IncidentStatus, type TimelineEntry } from './ai-incident.entity';
import { toIncidentResponse, type IncidentResponse } from './ai-incident.mapper';
import { readIncidentFields } from './incident-body';
import { appendEntry } from './incident-timeline';

/** What people do with incidents: list, read, open by hand, edit (status included), note, delete. Changes are audited. */
@Injectable()
export class AiIncidents {
  constructor(
    @InjectRepository(AiIncidentEntity) private readonly incidents: Repository<AiIncidentEntity>,
    private readonly audit: AuditLogService,
  ) {}

  async list(filter: { status?: IncidentStatus }, page: { limit: number; offset: number }): Promise<{ items: IncidentResponse[]; total: number }> {
    const where: FindOptionsWhere<AiIncidentEntity> = filter.status === undefined ? {} : { status: filter.status };
    const [rows, total] = await this.incidents.findAndCount({ where, order: { lastEventAt: 'DESC', id: 'ASC' }, take: page.limit, skip: page.offset });
    return { items: rows.map(toIncidentResponse), total };
  }

  async get(id: string): Promise<IncidentResponse> {
    return toIncidentResponse(await this.existing(id));
  }

  private async existing(id: string): Promise<AiIncidentEntity> {
    const found = await this.incidents.findOneBy({ id });
    if (found === null) throw new DomainError('AI_INCIDENT_NOT_FOUND');
    return found;
  }

  async create(raw: unknown, actor: AuditActor): Promise<IncidentResponse> {
    const read = readIncidentFields(raw, 'create');
    if (!read.ok) throw DomainError.fromFieldErrors(read.errors);
    const now = new Date();
    const status = read.value.status ?? 'open';
    const incident = this.incidents.create({
      id: randomUUID(),
      title: read.value.title as string,
      status,
      severity: read.value.severity ?? 'WARNING',
      routes: read.value.routes ?? [],
      upstreams: read.value.upstreams ?? [],
      hypothesis: read.value.hypothesis ?? null,
      timeline: [{ at: now.toISOString(), kind: 'status', by: actor.email, text: `opened by hand (${status})` }],
      lastEventAt: now,
      resolvedAt: status === 'resolved' ? now : null,
      createdAt: now,
      updatedAt: now,
    });
    await this.incidents.save(incident);
    await this.audit.record({ actor: actor.email, action: 'ai-incident.create', target: incident.id, ip: actor.ip, details: { title: incident.title } });
    return toIncidentResponse(incident);
  }

  async update(id: string, raw: unknown, actor: AuditActor): Promise<IncidentResponse> {
    const read = readIncidentFields(raw, 'edit');
    if (!read.ok) throw DomainError.fromFieldErrors(read.errors);
    const incident = await this.existing(id);
    const now = new Date();
    const { status, ...rest } = read.value;
    Object.assign(incident, rest);
    if (status !== undefined && status !== incident.status) {
      appendEntry(incident, { at: now.toISOString(), kind: 'status', by: actor.email, text: `${incident.status} -> ${status}` });
      incident.status = status;
      incident.resolvedAt = status === 'resolved' ? now : null;
    }
    incident.updatedAt = now;
    await this.incidents.save(incident);
    await this.audit.record({ actor: actor.email, action: 'ai-incident.update', target: id, ip: actor.ip, details: { fields: Object.keys(read.value) } });
    return toIncidentResponse(incident);
  }

  async note(id: string, text: unknown, actor: AuditActor): Promise<IncidentResponse> {
    if (typeof text !== 'string' || text.trim().length === 0 || text.length > 4000) {
      throw DomainError.fromFieldErrors([{ field: 'text', message: 'text is required: 1 to 4000 characters', code: 'VALIDATION_ERROR' }]);
    }
    return this.addEntry(id, { at: new Date().toISOString(), kind: 'note', by: actor.email, text: text.trim() });
  }

  /** Appends an entry (a note, an analysis summary) and answers the incident. */
  async addEntry(id: string, entry: TimelineEntry): Promise<IncidentResponse> {
    const incident = await this.existing(id);
    appendEntry(incident, entry);
    await this.incidents.save(incident);
    return toIncidentResponse(incident);
  }

  async delete(id: string, actor: AuditActor): Promise<void> {
    const incident = await this.existing(id);
    await this.incidents.delete({ id });
    await this.audit.record({ actor: actor.email, action: 'ai-incident.delete', target: id, ip: actor.ip, details: { title: incident.title } });
  }
}
