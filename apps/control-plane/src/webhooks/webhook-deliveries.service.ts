import { Inject, Injectable } from '@nestjs/common';
import { CONTROL_PLANE_CONFIG } from '../config/config.tokens';
import type { ControlPlaneConfig } from '../config/control-plane-config';
import type { AuditActor } from '../audit/audit-actor';
import { AuditLogService } from '../audit/audit-log.service';
import { WebhookQueue } from './webhook-queue.service';
import { WebhookReads } from './webhook-reads.service';
import type { DeliveryResponse } from './webhook.mapper';

/** How often a test ping's caller looks whether the attempt is recorded. */
const PING_POLL_MS = 100;

/** The delivery actions of the API: a test ping (answered with its attempt) and a redelivery. */
@Injectable()
export class WebhookDeliveries {
  constructor(
    @Inject(CONTROL_PLANE_CONFIG) private readonly config: ControlPlaneConfig,
    private readonly queue: WebhookQueue,
    private readonly reads: WebhookReads,
    private readonly audit: AuditLogService,
  ) {}

  /**
   * Queues a ping and waits (at most the attempt's deadline and a few seconds) for whichever
   * instance sends it to record the attempt: the admin sees the receiver's answer at once.
   */
  async ping(webhookId: string, actor: AuditActor): Promise<DeliveryResponse> {
    const deliveryId = await this.queue.ping(webhookId);
    await this.audit.record({ actor: actor.email, action: 'webhook.test', target: webhookId, ip: actor.ip, details: { deliveryId } });
    const deadline = Date.now() + this.config.webhooks.timeoutMs + 5000;
    let delivery = await this.reads.delivery(webhookId, deliveryId);
    while (delivery.attempts === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, PING_POLL_MS));
      delivery = await this.reads.delivery(webhookId, deliveryId);
    }
    return delivery;
  }

  async redeliver(webhookId: string, deliveryId: string, actor: AuditActor): Promise<DeliveryResponse> {
    await this.queue.redeliver(webhookId, deliveryId);
    await this.audit.record({ actor: actor.email, action: 'webhook.redeliver', target: webhookId, ip: actor.ip, details: { deliveryId } });
    return this.reads.delivery(webhookId, deliveryId);
  }
}
