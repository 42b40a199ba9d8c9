import { randomUUID } from 'node:crypto';
import type { CircuitBreakerOpenedEvent, SignedBus } from '@gateway/events';
import { EVENTS_CHANNEL } from '@gateway/events';
import type { ClientResponse } from '@gateway/testing';
import type { Call } from './auth-fixtures';

export const REDIS_URL = process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
export const WEBHOOKS_JWT_SECRET = 'webhooks-e2e-jwt-secret-0123456789abcdef';
export const WEBHOOKS_CLUSTER_TOKEN = 'webhooks-e2e-cluster-token-0123456789';

export interface WebhookJson {
  id: string;
  url: string;
  events: string[];
  severity: string[] | null;
  enabled: boolean;
  disabledReason: string | null;
  previousSecretExpiresAt: string | null;
  secret?: string;
}

export interface DeliveryJson {
  id: string;
  eventId: string;
  eventType: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  countsForHealth: boolean;
  attemptLog: Array<{ attempt: number; statusCode: number | null; latencyMs: number; responseExcerpt: string | null; error: string | null }>;
}

/** What a data plane publishes when a breaker opens (the bus event webhooks deliver). */
export function breakerOpened(routeId: string): CircuitBreakerOpenedEvent {
  return {
    id: `evt_${randomUUID()}`,
    type: 'circuit_breaker.opened',
    createdAt: new Date().toISOString(),
    data: { breaker: `route:${routeId}`, kind: 'route', routeIds: [routeId], reason: 'failures', instanceId: 'dp-e2e' },
  };
}

export async function publishEvent(bus: SignedBus, event: CircuitBreakerOpenedEvent): Promise<void> {
  await bus.publish(EVENTS_CHANNEL, event);
}

export function expectStatus(res: ClientResponse, status: number, what: string): void {
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status}: ${res.text}`);
}

export async function createWebhook(call: Call, token: string, body: Record<string, unknown>): Promise<WebhookJson> {
  const res = await call('POST', '/api/webhooks', { token, body });
  expectStatus(res, 201, 'create webhook');
  return res.json<{ data: WebhookJson }>().data;
}

export async function deliveriesOf(call: Call, token: string, webhookId: string): Promise<DeliveryJson[]> {
  const res = await call('GET', `/api/webhooks/${webhookId}/deliveries?limit=100`, { token });
  expectStatus(res, 200, 'list deliveries');
  return res.json<{ data: DeliveryJson[] }>().data;
}

/** Polls (bounded) until `check` returns a value. */
export async function until<T>(what: string, check: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
