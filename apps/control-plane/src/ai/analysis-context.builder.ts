import { Injectable } from '@nestjs/common';
import { AiIncidents } from '../ai-incidents/ai-incidents.service';
import type { IncidentResponse } from '../ai-incidents/ai-incident.mapper';
import { AuditLogService } from '../audit/audit-log.service';
import { TelemetryIngest } from '../monitoring/telemetry-ingest.service';
import { MAX_CHANGES, MAX_EVENTS, type AnalysisContext } from './analysis-context';
import { metricsExcerpt } from './metrics-excerpt';

/**
 * Audit actions that change what the gateway does with traffic (not logins, not reads). Runbook
 * edits and approvals are left out: they change no route, and listed as "configuration changes
 * shortly before the first event" they crowded the likely causes (the runbook's own actions are on
 * the incident's timeline); a route test is a read.
 */
const CONFIG_ACTION = /^(route\.(?!test$)|settings\.|upstream\.|proxy\.|config\.|api-key\.)/;
const AUDIT_SCAN = 500;
const HOUR_MS = 3_600_000;

/**
 * The compact context of one analysis: the incident (its events from the timeline) or the
 * incidents active in a window, and the configuration changes of the audit log from an hour
 * before the window on, and the affected routes' metrics over the window. Nothing else leaves for
 * a provider.
 */
@Injectable()
export class AnalysisContextBuilder {
  constructor(
    private readonly incidents: AiIncidents,
    private readonly audit: AuditLogService,
    private readonly telemetry: TelemetryIngest,
  ) {}

  async forIncident(id: string): Promise<AnalysisContext> {
    const incident = await this.incidents.get(id);
    const from = new Date(incident.createdAt);
    const to = incident.resolvedAt === null ? new Date() : new Date(incident.resolvedAt);
    return {
      window: { from: from.toISOString(), to: to.toISOString() },
      incident: { id: incident.id, title: incident.title, status: incident.status, severity: incident.severity, routes: incident.routes, upstreams: incident.upstreams, hypothesis: incident.hypothesis },
      events: eventsOf([incident], from, to),
      configChanges: await this.changes(from, to),
      metrics: metricsExcerpt(this.telemetry.series, incident.routes, from.getTime(), to.getTime()),
    };
  }

  async forWindow(from: Date, to: Date): Promise<AnalysisContext> {
    const { items } = await this.incidents.list({}, { limit: 100, offset: 0 });
    const active = items.filter((i) => Date.parse(i.lastEventAt) >= from.getTime() && Date.parse(i.createdAt) <= to.getTime());
    const routes = [...new Set(active.flatMap((i) => i.routes))].sort();
    return {
      window: { from: from.toISOString(), to: to.toISOString() },
      incident: null,
      events: eventsOf(active, from, to),
      configChanges: await this.changes(from, to),
      metrics: metricsExcerpt(this.telemetry.series, routes, from.getTime(), to.getTime()),
    };
  }

  private async changes(from: Date, to: Date): Promise<AnalysisContext['configChanges']> {
    const { items } = await this.audit.list(AUDIT_SCAN, 0);
    const since = from.getTime() - HOUR_MS;
    return items
      .filter((e) => CONFIG_ACTION.test(e.action) && Date.parse(e.at) >= since && Date.parse(e.at) <= to.getTime())
      .slice(0, MAX_CHANGES)
      .map((e) => ({ id: e.id, at: e.at, action: e.action, target: e.target, actor: e.actor }))
      .reverse();
  }
}

function eventsOf(incidents: IncidentResponse[], from: Date, to: Date): AnalysisContext['events'] {
  const events = incidents
    .flatMap((i) => i.timeline)
    .filter((t) => t.kind === 'event' && t.eventId !== undefined && Date.parse(t.at) >= from.getTime() - HOUR_MS && Date.parse(t.at) <= to.getTime())
    .map((t) => ({ id: t.eventId as string, type: t.eventType ?? 'unknown', at: t.at, text: t.text }))
    .sort((a, b) => a.at.localeCompare(b.at));
  return events.slice(-MAX_EVENTS);
}
