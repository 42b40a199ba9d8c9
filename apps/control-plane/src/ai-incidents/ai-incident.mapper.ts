import type { AiIncidentEntity, TimelineEntry } from './ai-incident.entity';

export interface IncidentResponse {
  id: string;
  title: string;
  status: AiIncidentEntity['status'];
  severity: AiIncidentEntity['severity'];
  routes: string[];
  upstreams: string[];
  hypothesis: string | null;
  timeline: TimelineEntry[];
  lastEventAt: string;
  resolvedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export function toIncidentResponse(e: AiIncidentEntity): IncidentResponse {
  return {
    id: e.id,
    title: e.title,
    status: e.status,
    severity: e.severity,
    routes: e.routes,
    upstreams: e.upstreams,
    hypothesis: e.hypothesis,
    timeline: e.timeline,
    lastEventAt: e.lastEventAt.toISOString(),
    resolvedAt: e.resolvedAt === null ? null : e.resolvedAt.toISOString(),
    createdAt: e.createdAt.toISOString(),
    updatedAt: e.updatedAt.toISOString(),
  };
}
