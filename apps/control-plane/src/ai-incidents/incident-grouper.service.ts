import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { InjectRepository } from '@nestjs/typeorm';
import { Not, type Repository } from 'typeorm';
import { eventFacts, type EventFacts } from '../gateway-events/event-facts';
import { GATEWAY_EVENT, type AnyGatewayEvent } from '../gateway-events/gateway-event';
import { Lease } from '../lease/lease.service';
import { AiIncidentEntity } from './ai-incident.entity';
import { appendEntry, mergeTargets, sharesTarget, worse } from './incident-timeline';

/** Events about the same route or upstream this close to an incident's last event join it. */
export const GROUPING_WINDOW_MS = 30 * 60_000;
export const RECOVERY_SIGNAL = 'RECOVERY_SIGNAL';
const EVENT_LEASE_MS = 60_000;
/** Runbook events (runbooks publish them) and the timeline entry each becomes. */
const RUNBOOK_ENTRIES: Record<string, 'approval' | 'execution' | undefined> = {
  'runbook.approval_requested': 'approval',
  'runbook.approval_decided': 'approval',
  'runbook.execution_finished': 'execution',
};

/**
 * Groups gateway events into incidents: an event about a route or upstream of an active incident
 * (its last event within the window) joins it; a CRITICAL one with no such incident opens one;
 * RECOVERY_SIGNAL resolves the incidents it names. Approval requests join the incident of their
 * event. One instance handles each event (the event's lease).
 */
@Injectable()
export class IncidentGrouper {
  private readonly logger = new Logger('Incidents');

  constructor(
    @InjectRepository(AiIncidentEntity) private readonly incidents: Repository<AiIncidentEntity>,
    private readonly lease: Lease,
  ) {}

  @OnEvent(GATEWAY_EVENT, { async: true })
  async onGatewayEvent(event: AnyGatewayEvent): Promise<void> {
    try {
      const facts = eventFacts(event);
      const runbookEntry = RUNBOOK_ENTRIES[event.type];
      if (facts.routeIds.length === 0 && facts.upstreams.length === 0 && runbookEntry === undefined) return;
      if ((await this.lease.acquire(`incident-event:${event.id}`, EVENT_LEASE_MS)) === undefined) return;
      if (runbookEntry !== undefined) await this.noteRunbook(event, runbookEntry);
      else await this.group(facts, new Date());
    } catch (error) {
      this.logger.error(`cannot group event ${event.id} (${event.type}) into incidents: ${(error as Error).message}`);
    }
  }

  async group(facts: EventFacts, now: Date): Promise<AiIncidentEntity | undefined> {
    const active = (await this.incidents.find({ where: { status: Not('resolved') }, order: { lastEventAt: 'DESC' }, take: 200 })).filter((i) => sharesTarget(i, facts.routeIds, facts.upstreams));
    const entry = { at: now.toISOString(), kind: 'event' as const, by: 'system', text: `${facts.type} (${facts.severity}, confidence ${facts.confidence}): ${facts.summary}`, eventId: facts.id, eventType: facts.type };
    if (facts.type === RECOVERY_SIGNAL) {
      for (const incident of active) {
        appendEntry(incident, entry);
        appendEntry(incident, { at: now.toISOString(), kind: 'status', by: 'system', text: `${incident.status} -> resolved (recovery signal)` });
        Object.assign(incident, { status: 'resolved', resolvedAt: now, lastEventAt: now });
        await this.incidents.save(incident);
      }
      return active[0];
    }
    const joined = active.find((i) => now.getTime() - i.lastEventAt.getTime() <= GROUPING_WINDOW_MS);
    if (joined !== undefined) {
      appendEntry(joined, entry);
      Object.assign(joined, { severity: worse(joined.severity, facts.severity), routes: mergeTargets(joined.routes, facts.routeIds), upstreams: mergeTargets(joined.upstreams, facts.upstreams), lastEventAt: now });
      return this.incidents.save(joined);
    }
    if (facts.severity !== 'CRITICAL') return undefined;
    const targets = [...facts.routeIds, ...facts.upstreams].join(', ');
    const opened = this.incidents.create({
      id: randomUUID(),
      title: `${facts.type} on ${targets}`.slice(0, 200),
      status: 'open',
      severity: 'CRITICAL',
      routes: mergeTargets([], facts.routeIds),
      upstreams: mergeTargets([], facts.upstreams),
      timeline: [entry],
      hypothesis: null,
      lastEventAt: now,
      resolvedAt: null,
      createdAt: now,
      updatedAt: now,
    });
    this.logger.log(`incident ${opened.id} opened: ${opened.title}`);
    return this.incidents.save(opened);
  }

  /** A runbook's approval request, decision or run joins the incident that holds its triggering event. */
  private async noteRunbook(event: AnyGatewayEvent, kind: 'approval' | 'execution'): Promise<void> {
    const { eventId, executionId, summary } = event.data as Record<string, unknown>;
    if (typeof eventId !== 'string') return;
    const active = await this.incidents.find({ where: { status: Not('resolved') }, order: { lastEventAt: 'DESC' }, take: 200 });
    const incident = active.find((i) => i.timeline.some((t) => t.eventId === eventId && t.kind === 'event'));
    if (incident === undefined) return;
    const text = typeof summary === 'string' ? summary.slice(0, 500) : event.type;
    appendEntry(incident, { at: new Date().toISOString(), kind, by: 'system', text, refId: String(executionId), eventId });
    await this.incidents.save(incident);
  }
}
