import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put, Query } from '@nestjs/common';
import { ApiExtraModels, ApiOperation, ApiParam, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { Actor, type AuditActor } from '../audit/audit-actor';
import { Roles } from '../auth/auth.decorators';
import { ok, paginated, type ListEnvelope, type SuccessEnvelope } from '../common/envelope';
import { pageOf, PageQuery } from '../common/page.query';
import { Fails, NoContent, Ok, OkList } from '../openapi/openapi-schemas';
import { PatchWebhookDto, RotateSecretDto, WebhookBodyDto } from './webhook-body.dto';
import { WebhookDeliveries } from './webhook-deliveries.service';
import { WebhookReads } from './webhook-reads.service';
import { WebhookAttemptDto, WebhookDeliveryDto, WebhookResponseDto, WebhookWithSecretDto } from './webhook-response.dto';
import { DEFAULT_ROTATION_OVERLAP_SECONDS, WebhookWrites } from './webhook-writes.service';
import type { DeliveryResponse, WebhookResponse, WebhookWithSecret } from './webhook.mapper';

const WEBHOOK = { $ref: getSchemaPath(WebhookResponseDto) };
const WITH_SECRET = { $ref: getSchemaPath(WebhookWithSecretDto) };
const DELIVERY = { $ref: getSchemaPath(WebhookDeliveryDto) };
const ID = ApiParam({ name: 'id', description: 'Webhook id' });
const NOT_FOUND = Fails(404, 'WEBHOOK_NOT_FOUND: "Webhook not found"');
const BAD_PAGE = Fails(400, 'VALIDATION_ERROR: an unknown or bad query parameter (details.fields)');
const INVALID = Fails(400, 'VALIDATION_ERROR: details.fields names each bad field (url, events, severity, enabled, description), a refused target included');

/** Outbound webhooks for gateway events (docs/webhooks.md); admins only. */
@ApiTags('webhooks')
@ApiExtraModels(WebhookResponseDto, WebhookWithSecretDto, WebhookDeliveryDto, WebhookAttemptDto)
@Roles('admin')
@Controller('api/webhooks')
export class WebhooksController {
  constructor(
    private readonly reads: WebhookReads,
    private readonly writes: WebhookWrites,
    private readonly deliveries: WebhookDeliveries,
  ) {}

  @Post()
  @ApiOperation({ summary: 'Create a webhook; the response holds its signing secret, shown this once' })
  @Ok(201, WITH_SECRET)
  @INVALID
  async create(@Body() body: WebhookBodyDto, @Actor() actor: AuditActor): Promise<SuccessEnvelope<WebhookWithSecret>> {
    return ok(await this.writes.create(body, actor));
  }

  @Get()
  @ApiOperation({ summary: 'List webhooks (creation order), paginated' })
  @OkList(WEBHOOK)
  @BAD_PAGE
  async list(@Query() query: PageQuery): Promise<ListEnvelope<WebhookResponse>> {
    const page = pageOf(query);
    const { items, total } = await this.reads.list(page);
    return paginated(items, { total, ...page });
  }

  @Get(':id')
  @ApiOperation({ summary: 'One webhook (never its secret)' })
  @ID
  @Ok(200, WEBHOOK)
  @NOT_FOUND
  async get(@Param('id') id: string): Promise<SuccessEnvelope<WebhookResponse>> {
    return ok(await this.reads.get(id));
  }

  @Put(':id')
  @ApiOperation({ summary: 'Replace a webhook (all fields but the secret)' })
  @ID
  @Ok(200, WEBHOOK)
  @INVALID
  @NOT_FOUND
  async replace(@Param('id') id: string, @Body() body: WebhookBodyDto, @Actor() actor: AuditActor): Promise<SuccessEnvelope<WebhookResponse>> {
    return ok(await this.writes.replace(id, body, actor));
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Change some fields; enabling a disabled webhook clears its failure state' })
  @ID
  @Ok(200, WEBHOOK)
  @INVALID
  @NOT_FOUND
  async patch(@Param('id') id: string, @Body() body: PatchWebhookDto, @Actor() actor: AuditActor): Promise<SuccessEnvelope<WebhookResponse>> {
    return ok(await this.writes.patch(id, body, actor));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a webhook and its delivery log' })
  @ID
  @NoContent('Deleted')
  @NOT_FOUND
  async remove(@Param('id') id: string, @Actor() actor: AuditActor): Promise<void> {
    await this.writes.remove(id, actor);
  }

  @Post(':id/rotate-secret')
  @HttpCode(200)
  @ApiOperation({ summary: 'New signing secret (shown once); the previous one keeps signing beside it for overlapSeconds (default 1 day)' })
  @ID
  @Ok(200, WITH_SECRET)
  @Fails(400, 'VALIDATION_ERROR: overlapSeconds')
  @NOT_FOUND
  async rotate(@Param('id') id: string, @Body() body: RotateSecretDto, @Actor() actor: AuditActor): Promise<SuccessEnvelope<WebhookWithSecret>> {
    return ok(await this.writes.rotateSecret(id, body.overlapSeconds ?? DEFAULT_ROTATION_OVERLAP_SECONDS, actor));
  }

  @Post(':id/test')
  @HttpCode(200)
  @ApiOperation({ summary: 'Send a webhook.ping now (one attempt, not counted for health) and answer with its delivery and attempt' })
  @ID
  @Ok(200, DELIVERY)
  @NOT_FOUND
  async test(@Param('id') id: string, @Actor() actor: AuditActor): Promise<SuccessEnvelope<DeliveryResponse>> {
    return ok(await this.deliveries.ping(id, actor));
  }

  @Get(':id/deliveries')
  @ApiOperation({ summary: 'The delivery log, newest first, each delivery with every attempt' })
  @ID
  @OkList(DELIVERY)
  @BAD_PAGE
  @NOT_FOUND
  async listDeliveries(@Param('id') id: string, @Query() query: PageQuery): Promise<ListEnvelope<DeliveryResponse>> {
    const page = pageOf(query);
    const { items, total } = await this.reads.deliveriesOf(id, page);
    return paginated(items, { total, ...page });
  }

  @Post(':id/deliveries/:deliveryId/redeliver')
  @HttpCode(200)
  @ApiOperation({ summary: 'Send a delivery again: same event id and body, signed with the current secret; one attempt, not counted for health' })
  @ID
  @ApiParam({ name: 'deliveryId' })
  @Ok(200, DELIVERY)
  @Fails(404, 'WEBHOOK_DELIVERY_NOT_FOUND: "Webhook delivery not found"')
  @Fails(409, 'CONFLICT: the delivery is still pending (being attempted or waiting for its next attempt)')
  async redeliver(@Param('id') id: string, @Param('deliveryId') deliveryId: string, @Actor() actor: AuditActor): Promise<SuccessEnvelope<DeliveryResponse>> {
    return ok(await this.deliveries.redeliver(id, deliveryId, actor));
  }
}
