import type { AnyGatewayEvent } from './gateway-event';

export const EVENT_SEVERITIES = ['INFO', 'WARNING', 'CRITICAL'] as const;
export type EventSeverity = (typeof EVENT_SEVERITIES)[number];

/** What consumers (runbooks, incidents, analysis) read from any gateway event, already checked. */
export interface EventFacts {
  id: string;
  type: string;
  createdAt: string;
  /** 0..1; events without one (circuit_breaker.opened is a fact, not a guess) count as 1. */
  confidence: number;
  severity: EventSeverity;
  summary: string;
  routeIds: string[];
  upstreams: string[];
  /** The measured value of an error-rate event (`data.current_value`), or `context.errorRate`. */
  errorRate?: number;
  resourceType?: string;
}

const MAX_TARGETS = 20;

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function finite(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function ids(...values: unknown[]): string[] {
  const out = new Set<string>();
  for (const value of values) {
    for (const item of Array.isArray(value) ? value : [value]) {
      const id = typeof item === 'string' ? item : record(item)['id'] ?? record(item)['name'];
      if (typeof id === 'string' && id.length > 0 && id.length <= 200 && out.size < MAX_TARGETS) out.add(id);
    }
  }
  return [...out];
}

/**
 * The facts of an event in the spec 6.1 shape (`{severity, summary, confidence, data, context}`,
 * from the detectors) or a data plane's own (`circuit_breaker.opened`: `{breaker, routeIds}`).
 * Events come from the bus, so every field is read defensively: a missing or odd one never throws.
 */
export function eventFacts(event: AnyGatewayEvent): EventFacts {
  const data = record(event.data);
  const context = record(data['context']);
  const measures = record(data['data']);
  const confidence = finite(data['confidence']);
  const severity = EVENT_SEVERITIES.find((s) => s === String(data['severity']).toUpperCase()) ?? (event.type === 'circuit_breaker.opened' ? 'WARNING' : 'INFO');
  const errorRate = finite(context['errorRate']) ?? finite(context['error_rate']) ?? (event.type === 'ERROR_RATE_SPIKE' ? finite(measures['current_value']) : undefined);
  const resourceType = context['resourceType'] ?? context['resource_type'] ?? data['resourceType'];
  const summary = typeof data['summary'] === 'string' ? data['summary'].slice(0, 500) : event.type;
  const facts: EventFacts = {
    id: event.id,
    type: event.type,
    createdAt: event.createdAt,
    confidence: confidence === undefined ? 1 : Math.min(1, Math.max(0, confidence)),
    severity,
    summary,
    routeIds: ids(context['route'], context['routeId'], context['routes'], data['routeIds'], data['routeId']),
    upstreams: ids(context['upstream'], context['upstreams'], data['upstream']),
  };
  if (errorRate !== undefined) facts.errorRate = errorRate;
  if (typeof resourceType === 'string' && resourceType.length <= 100) facts.resourceType = resourceType;
  return facts;
}
