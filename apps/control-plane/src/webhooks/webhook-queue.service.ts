import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { EventEmitter2, OnEvent } from '@nestjs/event-emitter';
import { InjectRepository } from '@nestjs/typeorm';
import { Not, type Repository } from 'typeorm';
import { CONTROL_PLANE_CONFIG } from '../config/config.tokens';
import type { ControlPlaneConfig } from '../config/control-plane-config';
import { DomainError } from '../common/domain-error';
import { GATEWAY_EVENT, type AnyGatewayEvent } from '../gateway-events/gateway-event';
import { webhookWants } from './webhook-event-filter';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';
import { WebhookEntity } from './webhook.entity';

/** In-process signal that deliveries became due, so the dispatcher of this instance looks at once. */
export const DELIVERIES_DUE = 'webhooks.deliveries-due';

/** The kind of a test ping (POST /api/webhooks/:id/test). */
export const PING_EVENT = 'webhook.ping';

/**
 * Puts deliveries in the durable queue: one row per (webhook, event), inserted with ON CONFLICT
 * DO NOTHING so instances that all hear the same bus event enqueue it once. Sending is the
 * dispatcher's job (one instance, under the Lease).
 */
@Injectable()
export class WebhookQueue {
  private readonly logger = new Logger('Webhooks');

  constructor(
    @InjectRepository(WebhookEntity) private readonly webhooks: Repository<WebhookEntity>,
    @InjectRepository(WebhookDeliveryEntity) private readonly deliveries: Repository<WebhookDeliveryEntity>,
    @Inject(CONTROL_PLANE_CONFIG) private readonly config: ControlPlaneConfig,
    private readonly emitter: EventEmitter2,
  ) {}

  @OnEvent(GATEWAY_EVENT, { async: true })
  async onGatewayEvent(event: AnyGatewayEvent): Promise<void> {
    try {
      const targets = (await this.webhooks.findBy({ enabled: true })).filter((webhook) => webhookWants(webhook, event));
      for (const webhook of targets) await this.insert(webhook.id, event, { countsForHealth: true, maxAttempts: this.config.webhooks.retryDelaysMs.length + 1 });
      if (targets.length > 0) this.emitter.emit(DELIVERIES_DUE);
    } catch (error) {
      // An event lost here is logged with its id; the bus has no redelivery to fall back on.
      this.logger.error(`cannot enqueue event ${event.id} (${event.type}) for webhooks: ${(error as Error).message}`);
    }
  }

  /** A ping to one webhook (enabled or not): one attempt, not counted for the endpoint's health. */
  async ping(webhookId: string): Promise<string> {
    if (!(await this.webhooks.existsBy({ id: webhookId }))) throw new DomainError('WEBHOOK_NOT_FOUND');
    const event: AnyGatewayEvent = { id: `evt_${randomUUID()}`, type: PING_EVENT, createdAt: new Date().toISOString(), data: { webhookId } };
    const id = await this.insert(webhookId, event, { countsForHealth: false, maxAttempts: 1 });
    this.emitter.emit(DELIVERIES_DUE);
    return id;
  }

  /**
   * Sends a delivery again (the same event id and body, signed with the current secret): one more
   * attempt, not counted for the endpoint's health, whatever its state was.
   */
  async redeliver(webhookId: string, deliveryId: string): Promise<void> {
    const delivery = await this.deliveries.findOneBy({ id: deliveryId, webhookId });
    if (delivery === null) throw new DomainError('WEBHOOK_DELIVERY_NOT_FOUND');
    // Only a settled delivery: a pending one still has its schedule, which a redelivery would cut short.
    const update = await this.deliveries.update(
      { id: deliveryId, status: Not('pending'), attempts: delivery.attempts },
      { status: 'pending', maxAttempts: delivery.attempts + 1, countsForHealth: false, nextAttemptAt: new Date(), updatedAt: new Date() },
    );
    if ((update.affected ?? 0) === 0) throw new DomainError('CONFLICT', 'The delivery is still being attempted: redeliver it once it is delivered or failed');
    this.emitter.emit(DELIVERIES_DUE);
  }

  private async insert(webhookId: string, event: AnyGatewayEvent, options: { countsForHealth: boolean; maxAttempts: number }): Promise<string> {
    const now = new Date();
    const id = randomUUID();
    await this.deliveries
      .createQueryBuilder()
      .insert()
      .values({
        id,
        webhookId,
        eventId: event.id,
        eventType: event.type,
        payload: JSON.stringify({ id: event.id, type: event.type, createdAt: event.createdAt, data: event.data }),
        status: 'pending',
        attempts: 0,
        maxAttempts: options.maxAttempts,
        nextAttemptAt: now,
        countsForHealth: options.countsForHealth,
        createdAt: now,
        updatedAt: now,
      })
      .orIgnore()
      .execute();
    return id;
  }
}
