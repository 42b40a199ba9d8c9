import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { OutboundAddressRule, refuseLiteralTarget } from '@gateway/outbound-target';
import type { Repository } from 'typeorm';
import type { AuditActor } from '../audit/audit-actor';
import { AuditLogService } from '../audit/audit-log.service';
import { DomainError } from '../common/domain-error';
import { TransactionRunner } from '../database/transaction-runner';
import type { PatchWebhookDto, WebhookBodyDto } from './webhook-body.dto';
import { newWebhookSecret } from './webhook-secret';
import { WebhookSecretBox } from './webhook-secret-box';
import { WEBHOOK_TARGET_RULE } from './webhook-target.provider';
import { WebhookEntity } from './webhook.entity';
import { toWebhookResponse, type WebhookResponse, type WebhookWithSecret } from './webhook.mapper';

/** Default overlap of a rotation: receivers have a day to switch to the new secret. */
export const DEFAULT_ROTATION_OVERLAP_SECONDS = 86_400;

/** Creating, changing, rotating and deleting webhooks; each recorded in the audit log (never the secret). */
@Injectable()
export class WebhookWrites {
  private readonly logger = new Logger('Webhooks');

  constructor(
    @InjectRepository(WebhookEntity) private readonly webhooks: Repository<WebhookEntity>,
    private readonly transactions: TransactionRunner,
    private readonly audit: AuditLogService,
    private readonly box: WebhookSecretBox,
    @Inject(WEBHOOK_TARGET_RULE) private readonly rule: OutboundAddressRule,
  ) {}

  async create(body: WebhookBodyDto, actor: AuditActor): Promise<WebhookWithSecret> {
    this.checkUrl(body.url);
    const secret = newWebhookSecret();
    const now = new Date();
    const id = randomUUID();
    const entity = this.webhooks.create({
      id,
      url: body.url,
      events: dedupe(body.events),
      severity: body.severity ? dedupe(body.severity) : null,
      enabled: body.enabled ?? true,
      description: body.description ?? null,
      createdBy: actor.id,
      secret: this.box.seal(id, secret),
      previousSecret: null,
      previousSecretUntil: null,
      disabledReason: null,
      failingSince: null,
      createdAt: now,
      updatedAt: now,
    });
    await this.transactions.run(async (tx) => {
      await tx.getRepository(WebhookEntity).insert(entity);
      await this.audit.record({ actor: actor.email, action: 'webhook.create', target: entity.id, ip: actor.ip, details: auditDetails(entity) }, tx);
    });
    this.logger.log(`webhook ${entity.id} created by ${actor.email}`);
    return { ...toWebhookResponse(entity), secret };
  }

  /** PUT: every field but the secret replaced; absent optional fields take their defaults. */
  replace(id: string, body: WebhookBodyDto, actor: AuditActor): Promise<WebhookResponse> {
    return this.change(id, actor, 'webhook.replace', {
      url: body.url,
      events: body.events,
      severity: body.severity ?? null,
      enabled: body.enabled ?? true,
      description: body.description ?? null,
    });
  }

  patch(id: string, body: PatchWebhookDto, actor: AuditActor): Promise<WebhookResponse> {
    // The validation pipe lets null through optional fields; only severity and description may be cleared.
    const cleared = (['url', 'events', 'enabled'] as const).filter((field) => (body as Record<string, unknown>)[field] === null);
    if (cleared.length > 0) {
      const fields = cleared.map((field) => ({ field, message: `${field} cannot be null (omit it to keep the current value)`, code: 'VALIDATION_ERROR' }));
      throw new DomainError('VALIDATION_ERROR', fields[0]?.message, { fields });
    }
    return this.change(id, actor, 'webhook.update', body);
  }

  async remove(id: string, actor: AuditActor): Promise<void> {
    await this.transactions.run(async (tx) => {
      const result = await tx.getRepository(WebhookEntity).delete({ id });
      if ((result.affected ?? 0) === 0) throw new DomainError('WEBHOOK_NOT_FOUND');
      await this.audit.record({ actor: actor.email, action: 'webhook.delete', target: id, ip: actor.ip }, tx);
    });
  }

  /** A new secret signs from now on; the current one keeps signing beside it for `overlapSeconds`. */
  async rotateSecret(id: string, overlapSeconds: number, actor: AuditActor): Promise<WebhookWithSecret> {
    const secret = newWebhookSecret();
    const entity = await this.transactions.run(async (tx) => {
      const repository = tx.getRepository(WebhookEntity);
      const current = await repository.findOneBy({ id });
      if (current === null) throw new DomainError('WEBHOOK_NOT_FOUND');
      const now = new Date();
      const until = new Date(now.getTime() + overlapSeconds * 1000);
      Object.assign(current, { previousSecret: overlapSeconds > 0 ? current.secret : null, previousSecretUntil: overlapSeconds > 0 ? until : null, secret: this.box.seal(id, secret), updatedAt: now });
      await repository.save(current);
      await this.audit.record({ actor: actor.email, action: 'webhook.rotate-secret', target: id, ip: actor.ip, details: { overlapSeconds } }, tx);
      return current;
    });
    this.logger.log(`webhook ${id}: secret rotated by ${actor.email} (previous one signs for ${overlapSeconds} s)`);
    return { ...toWebhookResponse(entity), secret };
  }

  private async change(id: string, actor: AuditActor, action: string, fields: PatchWebhookDto): Promise<WebhookResponse> {
    if (fields.url !== undefined) this.checkUrl(fields.url);
    const entity = await this.transactions.run(async (tx) => {
      const repository = tx.getRepository(WebhookEntity);
      const current = await repository.findOneBy({ id });
      if (current === null) throw new DomainError('WEBHOOK_NOT_FOUND');
      if (fields.url !== undefined) current.url = fields.url;
      if (fields.events !== undefined) current.events = dedupe(fields.events);
      if (fields.severity !== undefined) current.severity = fields.severity === null ? null : dedupe(fields.severity);
      if (fields.description !== undefined) current.description = fields.description;
      if (fields.enabled !== undefined) {
        // Enabling again starts the health count afresh: the admin says the receiver is fixed.
        if (fields.enabled && !current.enabled) Object.assign(current, { disabledReason: null, failingSince: null });
        current.enabled = fields.enabled;
      }
      current.updatedAt = new Date();
      await repository.save(current);
      await this.audit.record({ actor: actor.email, action, target: id, ip: actor.ip, details: auditDetails(current) }, tx);
      return current;
    });
    return toWebhookResponse(entity);
  }

  /** A literal address in a refused range fails at once, naming the field; host names are judged on each connection. */
  private checkUrl(url: string): void {
    try {
      refuseLiteralTarget(this.rule, new URL(url));
    } catch (error) {
      const message = `url: ${(error as Error).message}`;
      throw new DomainError('VALIDATION_ERROR', message, { fields: [{ field: 'url', message, code: 'VALIDATION_ERROR' }] });
    }
  }
}

function dedupe(values: readonly string[]): string[] {
  return [...new Set(values)];
}

function auditDetails(entity: WebhookEntity): Record<string, unknown> {
  return { url: entity.url, events: entity.events, severity: entity.severity, enabled: entity.enabled };
}
