import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { OutboundAddressRule } from '@gateway/outbound-target';
import type { EntityManager, Repository } from 'typeorm';
import { CONTROL_PLANE_CONFIG } from '../config/config.tokens';
import type { ControlPlaneConfig } from '../config/control-plane-config';
import { nextRetryDelayMs } from '../config/webhooks-config';
import { TransactionRunner } from '../database/transaction-runner';
import { GatewayEventPublisher } from '../gateway-events/gateway-event-publisher.service';
import type { LeaseGrant } from '../lease/lease.service';
import { WebhookAttemptEntity } from './webhook-attempt.entity';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';
import { WebhookSecretBox } from './webhook-secret-box';
import { sendWebhook, type AttemptOutcome } from './webhook-sender';
import { signatureHeaders } from './webhook-signer';
import { WEBHOOK_TARGET_RULE } from './webhook-target.provider';
import { WebhookEntity } from './webhook.entity';

/** Raised (as a gateway event) when the gateway disables an endpoint itself. */
export const ENDPOINT_DISABLED_EVENT = 'webhook.endpoint_disabled';

/** Thrown inside the recording transaction when this instance no longer holds the lease. */
class LeaseLostError extends Error {}

/**
 * One attempt of one delivery: sign with every secret that signs now, send, and record the
 * attempt, the delivery's next state and the endpoint's health in one transaction that commits
 * only while this instance still holds the delivery lease (fencing token), so a paused instance
 * that lost it cannot overwrite what the new holder records.
 */
@Injectable()
export class WebhookAttempt {
  private readonly logger = new Logger('Webhooks');

  constructor(
    @Inject(CONTROL_PLANE_CONFIG) private readonly config: ControlPlaneConfig,
    @InjectRepository(WebhookEntity) private readonly webhooks: Repository<WebhookEntity>,
    private readonly transactions: TransactionRunner,
    private readonly box: WebhookSecretBox,
    @Inject(WEBHOOK_TARGET_RULE) private readonly rule: OutboundAddressRule,
    private readonly events: GatewayEventPublisher,
  ) {}

  async run(delivery: WebhookDeliveryEntity, grant: LeaseGrant): Promise<void> {
    const webhook = await this.webhooks.findOneBy({ id: delivery.webhookId });
    if (webhook === null) return; // deleted meanwhile: its deliveries went with it
    let outcome: AttemptOutcome;
    try {
      const headers = signatureHeaders({ eventId: delivery.eventId, deliveryId: delivery.id, timestamp: Math.floor(Date.now() / 1000), body: delivery.payload }, this.secretsOf(webhook));
      outcome = await sendWebhook({ url: webhook.url, headers, body: delivery.payload }, { rule: this.rule, timeoutMs: this.config.webhooks.timeoutMs });
    } catch (error) {
      outcome = { ok: false, statusCode: null, latencyMs: 0, responseExcerpt: null, error: (error as Error).message, gone: false };
    }
    try {
      const disabled = await this.transactions.run((tx) => this.record(tx, delivery, webhook.id, outcome, grant));
      if (disabled !== undefined) {
        this.logger.warn(`webhook ${webhook.id} disabled: ${disabled}`);
        this.events.publish(ENDPOINT_DISABLED_EVENT, { webhookId: webhook.id, url: webhook.url, reason: disabled });
      }
    } catch (error) {
      if (!(error instanceof LeaseLostError)) throw error;
      this.logger.warn(`delivery ${delivery.id}: the delivery lease moved to another instance; this attempt is not recorded (the new holder sends again)`);
    }
  }

  private secretsOf(webhook: WebhookEntity): string[] {
    const secrets = [this.box.open(webhook.id, webhook.secret)];
    if (webhook.previousSecret !== null && webhook.previousSecretUntil !== null && webhook.previousSecretUntil.getTime() > Date.now()) {
      secrets.push(this.box.open(webhook.id, webhook.previousSecret));
    }
    return secrets;
  }

  /** Returns why the endpoint was disabled by this attempt, if it was. */
  private async record(tx: EntityManager, delivery: WebhookDeliveryEntity, webhookId: string, outcome: AttemptOutcome, grant: LeaseGrant): Promise<string | undefined> {
    const now = new Date();
    const attempt = delivery.attempts + 1;
    const delay = outcome.ok || outcome.gone || attempt >= delivery.maxAttempts ? undefined : nextRetryDelayMs(this.config.webhooks, attempt, outcome.retryAfterMs);
    const status = outcome.ok ? 'delivered' : delay === undefined ? 'failed' : 'pending';
    const update = await tx
      .createQueryBuilder()
      .update(WebhookDeliveryEntity)
      .set({ status, attempts: attempt, nextAttemptAt: delay === undefined ? null : new Date(now.getTime() + delay), updatedAt: now })
      .where('id = :id AND attempts = :attempts', { id: delivery.id, attempts: delivery.attempts })
      .andWhere('EXISTS (SELECT 1 FROM "leases" WHERE "name" = :lease AND "holder" = :holder AND "token" = :token)', { lease: grant.name, holder: grant.holder, token: grant.token })
      .execute();
    if ((update.affected ?? 0) === 0) throw new LeaseLostError();
    await tx.getRepository(WebhookAttemptEntity).insert({
      id: randomUUID(),
      deliveryId: delivery.id,
      attempt,
      at: now,
      statusCode: outcome.statusCode,
      latencyMs: outcome.latencyMs,
      responseExcerpt: outcome.responseExcerpt,
      error: outcome.error?.slice(0, 500) ?? null,
    });
    return delivery.countsForHealth ? this.updateHealth(tx, webhookId, outcome, now) : undefined;
  }

  /** A success clears the failing streak; 410, or failing for longer than WEBHOOK_DISABLE_AFTER, disables. */
  private async updateHealth(tx: EntityManager, webhookId: string, outcome: AttemptOutcome, now: Date): Promise<string | undefined> {
    const webhooks = tx.getRepository(WebhookEntity);
    const webhook = await webhooks.findOneBy({ id: webhookId });
    if (webhook === null) return undefined;
    if (outcome.ok) {
      if (webhook.failingSince !== null) await webhooks.update({ id: webhookId }, { failingSince: null });
      return undefined;
    }
    const failingSince = webhook.failingSince ?? now;
    let reason: string | undefined;
    if (outcome.gone) reason = 'the receiver answered 410 Gone';
    else if (now.getTime() - failingSince.getTime() >= this.config.webhooks.disableAfterMs) reason = `every attempt failed since ${failingSince.toISOString()}`;
    if (reason !== undefined && webhook.enabled) {
      await webhooks.update({ id: webhookId }, { failingSince, enabled: false, disabledReason: reason, updatedAt: now });
      return reason;
    }
    if (webhook.failingSince === null) await webhooks.update({ id: webhookId }, { failingSince });
    return undefined;
  }
}
