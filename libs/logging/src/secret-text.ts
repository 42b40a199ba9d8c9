import { REDACTED } from './redacted-paths';

/** Credentials that may end up inside a message: bearer tokens, JWTs, password fields, URL passwords. */
const SECRET_PATTERNS: ReadonlyArray<[RegExp, (match: string, head: string) => string]> = [
  [/\b(Bearer|ApiKey|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, (_match, scheme) => `${scheme} ${REDACTED}`],
  [/\beyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g, () => REDACTED],
  // Gateway API keys (control-plane api-keys/api-key-material.ts), should one ever be written into a message.
  [/\bgw_[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g, () => REDACTED],
  [/("?(?:password|passwd|secret|token|apiKey|api_key|x-api-key|SAMLResponse)"?\s*[:=]\s*)(?:"[^"]*"|[^\s,&}]+)/gi, (_match, key) => `${key}${REDACTED}`],
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^:/?#\s@]*:)[^@/\s]+@/gi, (_match, head) => `${head}${REDACTED}@`],
];

/** Shorter configured values are not treated as secrets: replacing them would shred ordinary text. */
const MIN_KNOWN_SECRET_LENGTH = 6;

/**
 * Value-based redaction of log text, the complement of the path-based list: whatever a message
 * says, the configured secrets (JWT secret, cluster token, admin password...) and anything shaped
 * like a credential are replaced.
 */
export class SecretText {
  private secrets: string[] = [];

  constructor(secrets: ReadonlyArray<string | undefined> = []) {
    this.add(secrets);
  }

  /** Secrets known only later (the control plane's, once its configuration is read). */
  add(secrets: ReadonlyArray<string | undefined>): void {
    const known = secrets.filter((s): s is string => s !== undefined && s.length >= MIN_KNOWN_SECRET_LENGTH);
    // Longest first, so a secret containing another is replaced whole.
    this.secrets = [...new Set([...this.secrets, ...known])].sort((a, b) => b.length - a.length);
  }

  redact(text: string): string {
    let out = text;
    for (const secret of this.secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    for (const [pattern, replace] of SECRET_PATTERNS) out = out.replace(pattern, replace);
    return out;
  }

  /** Every string inside `value` redacted (a copy; depth-bounded, since log fields are shallow). */
  redactValue(value: unknown, depth = 0): unknown {
    if (typeof value === 'string') return this.redact(value);
    if (value === null || typeof value !== 'object' || depth > 6) return value;
    if (value instanceof Error) return { type: value.name, message: this.redact(value.message), ...(value.stack === undefined ? {} : { stack: this.redact(value.stack) }) };
    if (Array.isArray(value)) return value.map((item) => this.redactValue(item, depth + 1));
    const prototype: unknown = Object.getPrototypeOf(value);
    // Dates, buffers and the like are left to the serializer: they hold no text of their own.
    if (prototype !== Object.prototype && prototype !== null) return value;
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = this.redactValue(item, depth + 1);
    return out;
  }
}
