import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { EventSeverity } from '../gateway-events/event-facts';

export const INCIDENT_STATUSES = ['open', 'acknowledged', 'mitigated', 'resolved'] as const;
export type IncidentStatus = (typeof INCIDENT_STATUSES)[number];

/** One line of an incident's history (docs/ai.md "Incidents"). */
export interface TimelineEntry {
  at: string;
  kind: 'event' | 'execution' | 'approval' | 'note' | 'analysis' | 'status';
  /** Who (an admin's email) or what (`system`) wrote it. */
  by: string;
  text: string;
  eventId?: string;
  eventType?: string;
  refId?: string;
}

/** Related gateway events grouped by route or upstream within a window, and what people and runbooks did about them. */
@Entity({ name: 'ai_incidents' })
export class AiIncidentEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ type: 'varchar', length: 200 })
  title!: string;

  @Column({ type: 'varchar', length: 16 })
  status!: IncidentStatus;

  @Column({ type: 'varchar', length: 16 })
  severity!: EventSeverity;

  @Column({ type: 'simple-json' })
  routes!: string[];

  @Column({ type: 'simple-json' })
  upstreams!: string[];

  @Column({ type: 'simple-json' })
  timeline!: TimelineEntry[];

  @Column({ type: 'text', nullable: true })
  hypothesis!: string | null;

  @Column({ name: 'last_event_at' })
  lastEventAt!: Date;

  @Column({ name: 'resolved_at', type: Date, nullable: true })
  resolvedAt!: Date | null;

  @Column({ name: 'created_at' })
  createdAt!: Date;

  @Column({ name: 'updated_at' })
  updatedAt!: Date;
}
