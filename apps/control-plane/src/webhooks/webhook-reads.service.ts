import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, type Repository } from 'typeorm';
import { DomainError } from '../common/domain-error';
import { WebhookAttemptEntity } from './webhook-attempt.entity';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';
import { WebhookEntity } from './webhook.entity';
import { toDeliveryResponse, toWebhookResponse, type DeliveryResponse, type WebhookResponse } from './webhook.mapper';

/** Listing and reading webhooks and their delivery log. */
@Injectable()
export class WebhookReads {
  constructor(
    @InjectRepository(WebhookEntity) private readonly webhooks: Repository<WebhookEntity>,
    @InjectRepository(WebhookDeliveryEntity) private readonly deliveries: Repository<WebhookDeliveryEntity>,
    @InjectRepository(WebhookAttemptEntity) private readonly attempts: Repository<WebhookAttemptEntity>,
  ) {}

  async list(page: { limit: number; offset: number }): Promise<{ items: WebhookResponse[]; total: number }> {
    const [entities, total] = await this.webhooks.findAndCount({ order: { createdAt: 'ASC', id: 'ASC' }, take: page.limit, skip: page.offset });
    const now = new Date();
    return { items: entities.map((entity) => toWebhookResponse(entity, now)), total };
  }

  async get(id: string): Promise<WebhookResponse> {
    const entity = await this.webhooks.findOneBy({ id });
    if (entity === null) throw new DomainError('WEBHOOK_NOT_FOUND');
    return toWebhookResponse(entity);
  }

  /** Newest first, each with its attempts (oldest first). */
  async deliveriesOf(webhookId: string, page: { limit: number; offset: number }): Promise<{ items: DeliveryResponse[]; total: number }> {
    if (!(await this.webhooks.existsBy({ id: webhookId }))) throw new DomainError('WEBHOOK_NOT_FOUND');
    const [entities, total] = await this.deliveries.findAndCount({ where: { webhookId }, order: { createdAt: 'DESC', id: 'ASC' }, take: page.limit, skip: page.offset });
    const attempts = entities.length === 0 ? [] : await this.attempts.find({ where: { deliveryId: In(entities.map((e) => e.id)) }, order: { attempt: 'ASC' } });
    return { items: entities.map((entity) => toDeliveryResponse(entity, attempts.filter((a) => a.deliveryId === entity.id))), total };
  }

  async delivery(webhookId: string, deliveryId: string): Promise<DeliveryResponse> {
    const entity = await this.deliveries.findOneBy({ id: deliveryId, webhookId });
    if (entity === null) throw new DomainError('WEBHOOK_DELIVERY_NOT_FOUND');
    return toDeliveryResponse(entity, await this.attempts.find({ where: { deliveryId }, order: { attempt: 'ASC' } }));
  }
}
