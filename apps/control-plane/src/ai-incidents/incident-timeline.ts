import type { EventSeverity } from '../gateway-events/event-facts';
import type { AiIncidentEntity, TimelineEntry } from './ai-incident.entity';

/** An incident keeps its newest entries; a flood of events must not grow a row without bound. */
export const MAX_TIMELINE = 500;
const MAX_TARGETS = 50;
const RANK: Record<EventSeverity, number> = { INFO: 0, WARNING: 1, CRITICAL: 2 };

export function appendEntry(incident: AiIncidentEntity, entry: TimelineEntry): void {
  incident.timeline = [...incident.timeline, entry].slice(-MAX_TIMELINE);
  incident.updatedAt = new Date(entry.at);
}

export function worse(a: EventSeverity, b: EventSeverity): EventSeverity {
  return RANK[b] > RANK[a] ? b : a;
}

export function mergeTargets(into: string[], more: readonly string[]): string[] {
  return [...new Set([...into, ...more])].slice(0, MAX_TARGETS);
}

/** Whether an event about these routes and upstreams belongs to the incident (shares one of them). */
export function sharesTarget(incident: Pick<AiIncidentEntity, 'routes' | 'upstreams'>, routes: readonly string[], upstreams: readonly string[]): boolean {
  return routes.some((r) => incident.routes.includes(r)) || upstreams.some((u) => incident.upstreams.includes(u));
}
