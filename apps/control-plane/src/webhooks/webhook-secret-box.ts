import { Injectable } from '@nestjs/common';
import { SecretBox, SecretBoxError } from '../encryption/secret-box';

/**
 * Webhook signing secrets at rest, sealed by the one SecretBox (SETTINGS_ENCRYPTION_KEY), so every
 * control plane sharing the database opens them. The context is the webhook's id: a sealed secret
 * copied onto another webhook's row does not open. It covers both columns because a rotation moves
 * the current secret into `previousSecret` as it is.
 */
@Injectable()
export class WebhookSecretBox {
  constructor(private readonly box: SecretBox) {}

  seal(webhookId: string, plain: string): string {
    return this.box.seal(plain, contextOf(webhookId));
  }

  open(webhookId: string, stored: string): string {
    try {
      return this.box.open(stored, contextOf(webhookId));
    } catch (error) {
      if (!(error instanceof SecretBoxError)) throw error;
      // Names the webhook, never the secret; the usual cause is another SETTINGS_ENCRYPTION_KEY.
      throw new SecretBoxError(`the signing secret of webhook ${webhookId} ${error.message}`);
    }
  }
}

function contextOf(webhookId: string): string {
  return `webhook:${webhookId}`;
}
