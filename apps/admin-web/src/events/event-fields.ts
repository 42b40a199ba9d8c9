import type { EventQuery, EventSeverity, GatewayEvent } from '../api/api-types';

export const SEVERITIES: readonly EventSeverity[] = ['INFO', 'WARNING', 'CRITICAL'];

/** Kinds offered in the type filter (docs/events.md); any other kind may be typed. */
export const KNOWN_KINDS = [
  'ERROR_RATE_SPIKE',
  'LATENCY_ANOMALY',
  'COST_ALERT',
  'CIRCUIT_BREAKER_CANDIDATE',
  'CAPACITY_WARNING',
  'RECOVERY_SIGNAL',
  'circuit_breaker.opened',
  'webhook.endpoint_disabled',
] as const;

export type EventFilter = Omit<EventQuery, 'limit' | 'offset'>;

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

/** A detector event's severity (spec 6.1); bus events have none. */
export function severityOf(event: GatewayEvent): EventSeverity | undefined {
  const value = event.data['severity'];
  return SEVERITIES.find((s) => s === value);
}

/** The route an event is about, as the API's route filter reads it (context.route, else the first of routeIds). */
export function routeOf(event: GatewayEvent): string | undefined {
  const route = record(event.data['context'])?.['route'];
  if (typeof route === 'string') return route;
  const ids = event.data['routeIds'];
  return Array.isArray(ids) && typeof ids[0] === 'string' ? ids[0] : undefined;
}

export function summaryOf(event: GatewayEvent): string {
  const summary = event.data['summary'];
  if (typeof summary === 'string') return summary;
  const reason = event.data['reason'];
  return typeof reason === 'string' ? reason : '';
}

export function confidenceOf(event: GatewayEvent): number | undefined {
  const value = event.data['confidence'];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** The detail's parts: a detector event's `data` and `context`; for other kinds the whole payload. */
export function detailParts(event: GatewayEvent): { data: unknown; context: unknown } {
  if (typeof event.data['summary'] === 'string' && 'context' in event.data) return { data: event.data['data'], context: event.data['context'] };
  return { data: event.data, context: undefined };
}

/** Whether a streamed event belongs on the list the filter shows (the API's own rules, applied in the browser). */
export function matchesFilter(event: GatewayEvent, filter: EventFilter): boolean {
  if (filter.type !== undefined && event.type !== filter.type) return false;
  if (filter.severity !== undefined && severityOf(event) !== filter.severity) return false;
  if (filter.route !== undefined && routeOf(event) !== filter.route) return false;
  const at = Date.parse(event.createdAt);
  if (filter.from !== undefined && at < Date.parse(filter.from)) return false;
  if (filter.to !== undefined && at > Date.parse(filter.to)) return false;
  return true;
}

/** The filter in the address (`?type=&severity=&route=&from=&to=`), unknown values dropped. */
export function filterFromQuery(query: Record<string, string | undefined>): EventFilter {
  const text = (name: string): string | undefined => {
    const value = query[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const instant = (name: string): string | undefined => {
    const value = text(name);
    return value !== undefined && Number.isFinite(Date.parse(value)) ? new Date(value).toISOString() : undefined;
  };
  const severity = SEVERITIES.find((s) => s === query['severity']);
  const filter: EventFilter = {};
  const type = text('type');
  const route = text('route');
  const from = instant('from');
  const to = instant('to');
  if (type !== undefined) filter.type = type;
  if (severity !== undefined) filter.severity = severity;
  if (route !== undefined) filter.route = route;
  if (from !== undefined) filter.from = from;
  if (to !== undefined) filter.to = to;
  return filter;
}

/** The address's query for the first page of events matching the filter (the page links add `page`). */
export function queryOf(filter: EventFilter): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(filter)) if (typeof value === 'string') params.set(name, value);
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** An instant as a `datetime-local` value in the admin's time zone (the input has no zone). */
export function toLocalInput(iso: string | undefined): string {
  if (iso === undefined) return '';
  const date = new Date(iso);
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}
