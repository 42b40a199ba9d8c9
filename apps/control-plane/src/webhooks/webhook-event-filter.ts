import type { AnyGatewayEvent } from '../gateway-events/gateway-event';
import type { WebhookEntity } from './webhook.entity';

/** Whether `kind` is named by `patterns`: exactly, by a `prefix.*` pattern, or by `*`. */
export function kindMatches(patterns: readonly string[], kind: string): boolean {
  return patterns.some((pattern) => pattern === '*' || pattern === kind || (pattern.endsWith('.*') && kind.startsWith(pattern.slice(0, -1))));
}

/**
 * Whether a webhook wants an event: its kind is subscribed and, when the webhook filters by
 * severity and the event has one (detector events carry `data.severity`), the severity is listed.
 */
export function webhookWants(webhook: Pick<WebhookEntity, 'events' | 'severity'>, event: Pick<AnyGatewayEvent, 'type' | 'data'>): boolean {
  if (!kindMatches(webhook.events, event.type)) return false;
  const severity = event.data['severity'];
  return webhook.severity === null || typeof severity !== 'string' || webhook.severity.includes(severity);
}
