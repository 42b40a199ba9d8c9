import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { CONTROL_PLANE_CONFIG } from '../config/config.tokens';
import type { ControlPlaneConfig } from '../config/control-plane-config';
import { readOrCreateSecret } from '../config/secret-file';

/** Marks the stored form, so a future scheme (e.g. a settings-wide key) can tell rows apart. */
const FORMAT = 'aesgcm1';

/**
 * Webhook signing secrets at rest: AES-256-GCM under a key kept in the data directory
 * (`webhook-secrets-key`, created on first use, mode 0600). Each value gets a fresh 12-byte nonce;
 * the tag makes a tampered or foreign row fail loudly instead of signing with garbage. Instances
 * sharing a database must share this file (docs/webhooks.md). Everything about the at-rest form is
 * in this one class, so a settings-wide encryption key can replace it.
 */
@Injectable()
export class WebhookSecretBox {
  private cachedKey: Buffer | undefined;

  constructor(@Inject(CONTROL_PLANE_CONFIG) private readonly config: Pick<ControlPlaneConfig, 'dataDir'>) {}

  /** Read or created on first use: a gateway without webhooks keeps no key file. */
  private get key(): Buffer {
    if (this.cachedKey === undefined) {
      const { secret } = readOrCreateSecret(this.config.dataDir, 'webhookSecrets');
      this.cachedKey = createHash('sha256').update(`gateway webhook secrets\0${secret}`).digest();
    }
    return this.cachedKey;
  }

  seal(plain: string): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [FORMAT, nonce.toString('base64'), sealed.toString('base64'), cipher.getAuthTag().toString('base64')].join(':');
  }

  open(stored: string): string {
    const [format, nonce, sealed, tag] = stored.split(':');
    if (format !== FORMAT || nonce === undefined || sealed === undefined || tag === undefined) {
      throw new Error('a stored webhook secret is not in the expected form');
    }
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(nonce, 'base64'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    try {
      return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64')), decipher.final()]).toString('utf8');
    } catch {
      // The message never carries the secret or key; the usual cause is a different key file.
      throw new Error('a stored webhook secret cannot be decrypted: is webhook-secrets-key the one of the instance that stored it?');
    }
  }
}
