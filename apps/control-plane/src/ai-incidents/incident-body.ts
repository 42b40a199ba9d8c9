import type { FieldError } from '@gateway/route-model';
import { EVENT_SEVERITIES, type EventSeverity } from '../gateway-events/event-facts';
import { INCIDENT_STATUSES, type IncidentStatus } from './ai-incident.entity';

export interface IncidentFields {
  title?: string;
  status?: IncidentStatus;
  severity?: EventSeverity;
  routes?: string[];
  upstreams?: string[];
  hypothesis?: string | null;
}

const KNOWN = ['title', 'status', 'severity', 'routes', 'upstreams', 'hypothesis'];
const err = (field: string, message: string): FieldError => ({ field, message, code: 'VALIDATION_ERROR' });

function idList(value: unknown, field: string, errors: FieldError[]): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length > 50 || value.some((v) => typeof v !== 'string' || v.length === 0 || v.length > 200)) {
    errors.push(err(field, `${field} must be an array of at most 50 ids (1 to 200 characters)`));
    return undefined;
  }
  return value as string[];
}

/** A create (title and severity required) or an edit (any field), every bad field named. */
export function readIncidentFields(raw: unknown, mode: 'create' | 'edit'): { ok: true; value: IncidentFields } | { ok: false; errors: FieldError[] } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { ok: false, errors: [err('body', 'body must be a JSON object')] };
  const body = raw as Record<string, unknown>;
  const errors: FieldError[] = [];
  for (const key of Object.keys(body)) if (!KNOWN.includes(key)) errors.push(err(key, `${key} is not an incident field (known: ${KNOWN.join(', ')})`));
  const value: IncidentFields = {};
  const { title, status, severity, hypothesis } = body;
  if (title !== undefined || mode === 'create') {
    if (typeof title !== 'string' || title.trim().length === 0 || title.length > 200) errors.push(err('title', 'title is required: 1 to 200 characters'));
    else value.title = title.trim();
  }
  if (status !== undefined) {
    if (!INCIDENT_STATUSES.includes(status as IncidentStatus)) errors.push(err('status', `status must be one of ${INCIDENT_STATUSES.join(', ')}`));
    else value.status = status as IncidentStatus;
  }
  if (severity !== undefined || mode === 'create') {
    if (!EVENT_SEVERITIES.includes(severity as EventSeverity)) errors.push(err('severity', `severity must be one of ${EVENT_SEVERITIES.join(', ')}`));
    else value.severity = severity as EventSeverity;
  }
  if (hypothesis !== undefined) {
    if (hypothesis !== null && (typeof hypothesis !== 'string' || hypothesis.length > 4000)) errors.push(err('hypothesis', 'hypothesis must be a string of at most 4000 characters, or null'));
    else value.hypothesis = hypothesis;
  }
  const routes = idList(body['routes'], 'routes', errors);
  const upstreams = idList(body['upstreams'], 'upstreams', errors);
  if (routes !== undefined) value.routes = routes;
  if (upstreams !== undefined) value.upstreams = upstreams;
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value };
}
