import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Between, LessThan, MoreThan, type FindOptionsWhere, type Repository } from 'typeorm';
import type { AnyGatewayEvent } from '../gateway-events/gateway-event';
import { EventRecordEntity } from './event-record.entity';

export interface EventFilter {
  type?: string;
  severity?: string;
  route?: string;
  fromMs?: number;
  toMs?: number;
}

/** A stored event as the API answers it: the envelope delivered to webhooks, as it was raised. */
export type StoredEvent = AnyGatewayEvent;

/** A detector event's `data` is the spec 6.1 object: its severity and route are columns to filter on. */
function columnsOf(event: AnyGatewayEvent): Pick<EventRecordEntity, 'severity' | 'routeId'> {
  const severity = event.data['severity'];
  const context = event.data['context'];
  const route = typeof context === 'object' && context !== null ? (context as Record<string, unknown>)['route'] : undefined;
  const routeIds = event.data['routeIds'];
  const routeId = typeof route === 'string' ? route : Array.isArray(routeIds) && typeof routeIds[0] === 'string' ? routeIds[0] : null;
  return { severity: typeof severity === 'string' ? severity.slice(0, 16) : null, routeId: routeId === null ? null : routeId.slice(0, 100) };
}

export function toStoredEvent(entity: EventRecordEntity): StoredEvent {
  return { id: entity.id, type: entity.type, createdAt: new Date(entity.createdAtMs).toISOString(), data: JSON.parse(entity.data) as Record<string, unknown> };
}

/**
 * The stored events (GET /api/events, the stream). Keyed by the event's id with insert-or-ignore:
 * every instance records what it hears and the first write wins.
 */
@Injectable()
export class EventStore {
  constructor(@InjectRepository(EventRecordEntity) private readonly events: Repository<EventRecordEntity>) {}

  async record(event: AnyGatewayEvent): Promise<void> {
    await this.events
      .createQueryBuilder()
      .insert()
      .values({ id: event.id, type: event.type, ...columnsOf(event), createdAtMs: Date.parse(event.createdAt), storedAtMs: Date.now(), data: JSON.stringify(event.data) })
      .orIgnore()
      .execute();
  }

  /** A grouped event's data grew (late instanceIds): the stored copy follows. */
  async update(event: AnyGatewayEvent): Promise<void> {
    await this.events.update({ id: event.id }, { data: JSON.stringify(event.data) });
  }

  async list(filter: EventFilter, page: { limit: number; offset: number }): Promise<{ items: StoredEvent[]; total: number }> {
    const where: FindOptionsWhere<EventRecordEntity> = {};
    if (filter.type !== undefined) where.type = filter.type;
    if (filter.severity !== undefined) where.severity = filter.severity;
    if (filter.route !== undefined) where.routeId = filter.route;
    if (filter.fromMs !== undefined && filter.toMs !== undefined) where.createdAtMs = Between(filter.fromMs, filter.toMs);
    else if (filter.fromMs !== undefined) where.createdAtMs = MoreThan(filter.fromMs - 1);
    else if (filter.toMs !== undefined) where.createdAtMs = LessThan(filter.toMs + 1);
    const [rows, total] = await this.events.findAndCount({ where, order: { createdAtMs: 'DESC', id: 'ASC' }, take: page.limit, skip: page.offset });
    return { items: rows.map(toStoredEvent), total };
  }

  /** Events stored after `storedAfterMs` (the stream's cursor), oldest first. */
  async storedSince(storedAfterMs: number, limit: number): Promise<EventRecordEntity[]> {
    return this.events.find({ where: { storedAtMs: MoreThan(storedAfterMs) }, order: { storedAtMs: 'ASC', id: 'ASC' }, take: limit });
  }

  /** Deletes events older than the retention (settings `general.eventRetentionDays`). */
  async prune(retentionDays: number): Promise<number> {
    const result = await this.events.delete({ createdAtMs: LessThan(Date.now() - retentionDays * 86_400_000) });
    return result.affected ?? 0;
  }
}
