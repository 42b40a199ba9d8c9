import type { WebhookAttemptEntity } from './webhook-attempt.entity';
import type { DeliveryStatus, WebhookDeliveryEntity } from './webhook-delivery.entity';
import type { WebhookEntity } from './webhook.entity';

/** What the API shows of a webhook: never its secret (shown once, at creation or rotation). */
export interface WebhookResponse {
  id: string;
  url: string;
  events: string[];
  severity: string[] | null;
  enabled: boolean;
  description: string | null;
  /** Why the gateway disabled it (answered 410, failing too long); null otherwise. */
  disabledReason: string | null;
  /** Since when every attempt failed; null when the last counted attempt succeeded. */
  failingSince: string | null;
  /** Until when the previous secret still signs (after a rotation); null when only one signs. */
  previousSecretExpiresAt: string | null;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

/** The create and rotate responses: the only times the secret is shown. */
export interface WebhookWithSecret extends WebhookResponse {
  secret: string;
}

export interface AttemptResponse {
  attempt: number;
  at: string;
  statusCode: number | null;
  latencyMs: number;
  responseExcerpt: string | null;
  error: string | null;
}

export interface DeliveryResponse {
  id: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  status: DeliveryStatus;
  attempts: number;
  maxAttempts: number;
  nextAttemptAt: string | null;
  countsForHealth: boolean;
  createdAt: string;
  updatedAt: string;
  attemptLog: AttemptResponse[];
}

export function toWebhookResponse(entity: WebhookEntity, now = new Date()): WebhookResponse {
  const overlap = entity.previousSecret !== null && entity.previousSecretUntil !== null && entity.previousSecretUntil > now;
  return {
    id: entity.id,
    url: entity.url,
    events: entity.events,
    severity: entity.severity,
    enabled: entity.enabled,
    description: entity.description,
    disabledReason: entity.disabledReason,
    failingSince: entity.failingSince?.toISOString() ?? null,
    previousSecretExpiresAt: overlap ? (entity.previousSecretUntil as Date).toISOString() : null,
    createdBy: entity.createdBy,
    createdAt: entity.createdAt.toISOString(),
    updatedAt: entity.updatedAt.toISOString(),
  };
}

export function toAttemptResponse(entity: WebhookAttemptEntity): AttemptResponse {
  return { attempt: entity.attempt, at: entity.at.toISOString(), statusCode: entity.statusCode, latencyMs: entity.latencyMs, responseExcerpt: entity.responseExcerpt, error: entity.error };
}

export function toDeliveryResponse(entity: WebhookDeliveryEntity, attempts: readonly WebhookAttemptEntity[]): DeliveryResponse {
  return {
    id: entity.id,
    webhookId: entity.webhookId,
    eventId: entity.eventId,
    eventType: entity.eventType,
    status: entity.status,
    attempts: entity.attempts,
    maxAttempts: entity.maxAttempts,
    nextAttemptAt: entity.status === 'pending' ? (entity.nextAttemptAt?.toISOString() ?? null) : null,
    countsForHealth: entity.countsForHealth,
    createdAt: entity.createdAt.toISOString(),
    updatedAt: entity.updatedAt.toISOString(),
    attemptLog: attempts.map(toAttemptResponse),
  };
}
