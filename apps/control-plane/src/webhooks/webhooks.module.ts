import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { GatewayEventsModule } from '../gateway-events/gateway-events.module';
import { LeaseModule } from '../lease/lease.module';
import { WebhookAttemptEntity } from './webhook-attempt.entity';
import { WebhookAttempt } from './webhook-attempt.service';
import { WebhookDeliveries } from './webhook-deliveries.service';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';
import { WebhookDispatcher } from './webhook-dispatcher.service';
import { WebhookQueue } from './webhook-queue.service';
import { WebhookReads } from './webhook-reads.service';
import { WebhookSecretBox } from './webhook-secret-box';
import { WebhookTargetRuleProvider } from './webhook-target.provider';
import { WebhookWrites } from './webhook-writes.service';
import { WebhookEntity } from './webhook.entity';
import { WebhooksController } from './webhooks.controller';

/** Owns the webhooks tables and /api/webhooks (docs/webhooks.md): the API, the durable queue and its dispatcher. */
@Module({
  imports: [TypeOrmModule.forFeature([WebhookEntity, WebhookDeliveryEntity, WebhookAttemptEntity]), GatewayEventsModule, LeaseModule],
  controllers: [WebhooksController],
  providers: [WebhookReads, WebhookWrites, WebhookQueue, WebhookDeliveries, WebhookAttempt, WebhookDispatcher, WebhookSecretBox, WebhookTargetRuleProvider],
})
export class WebhooksModule {}
