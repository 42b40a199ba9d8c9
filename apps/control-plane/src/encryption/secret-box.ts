import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/** Stored form: `v1.<iv>.<tag>.<ciphertext>`, each base64url; the version names key derivation and cipher. */
const VERSION = 'v1';
const IV_LENGTH = 12;
const TAG_LENGTH = 16;
/** HKDF info: a key derived for sealing at rest is never the bytes of the configured variable itself. */
const KEY_INFO = 'gateway secret-box v1 aes-256-gcm';

/**
 * Encrypts secrets at rest with AES-256-GCM (settings secrets now; webhook secrets and the AI key
 * later). `context` is bound as associated data: a sealed value moved to another field (or row)
 * no longer opens, so a database writer cannot swap secrets around undetected.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.alloc(0), KEY_INFO, 32));
  }

  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_LENGTH);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG_LENGTH });
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join('.');
  }

  /** Throws SecretBoxError when the value is malformed, sealed with another key or for another context. */
  open(sealed: string, context: string): string {
    const [version, iv, tag, ciphertext, ...rest] = sealed.split('.');
    if (version !== VERSION || iv === undefined || tag === undefined || ciphertext === undefined || rest.length > 0) throw new SecretBoxError('not a sealed value');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'), { authTagLength: TAG_LENGTH });
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      // Never the crypto library's message: it adds nothing and the caller logs what it gets.
      throw new SecretBoxError('cannot be decrypted with SETTINGS_ENCRYPTION_KEY (another key, another field, or altered)');
    }
  }

  static isSealed(value: unknown): value is string {
    return typeof value === 'string' && value.startsWith(`${VERSION}.`) && value.split('.').length === 4;
  }
}

export class SecretBoxError extends Error {
  override name = 'SecretBoxError';
}
