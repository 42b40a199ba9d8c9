import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** Epoch ms in a bigint column: PostgreSQL hands bigints back as strings. */
const EPOCH_MS = { to: (value: number) => value, from: (value: string | number) => Number(value) };

/**
 * One gateway event as stored for GET /api/events and its stream: detector events (spec 6.1),
 * grouped circuit_breaker.opened, webhook.endpoint_disabled. The id is the event's own, so
 * instances that all record the same event store it once.
 */
@Entity({ name: 'gateway_events' })
@Index('IDX_gateway_events_created', ['createdAtMs'])
export class EventRecordEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id!: string;

  @Column({ type: 'varchar', length: 100 })
  type!: string;

  @Column({ type: 'varchar', length: 16, nullable: true })
  severity!: string | null;

  @Column({ name: 'route_id', type: 'varchar', length: 100, nullable: true })
  routeId!: string | null;

  @Column({ name: 'created_at_ms', type: 'bigint', transformer: EPOCH_MS })
  createdAtMs!: number;

  /** When this instance stored it (the stream's cursor: an event stored late still streams). */
  @Column({ name: 'stored_at_ms', type: 'bigint', transformer: EPOCH_MS })
  storedAtMs!: number;

  /** The event's `data` as JSON. */
  @Column({ type: 'text' })
  data!: string;
}
