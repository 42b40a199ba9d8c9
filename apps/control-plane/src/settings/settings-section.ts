/**
 * One section of the settings document (`general` now; events, AI, SSO later), owned and
 * validated by its feature: a class-validator class (its class-transformer decorators sanitize),
 * the defaults a missing field takes, and which fields are secrets (sealed at rest, write-only).
 */
export interface SettingsSection<T extends object = object> {
  readonly key: string;
  readonly schema: new () => T;
  readonly defaults: () => T;
  /** Top-level string fields holding secrets: sealed with the SecretBox, shown masked, never in the audit diff. */
  readonly secretFields?: readonly string[];
}

/** What a secret reads as: it is set, and its value is not shown. */
export const MASKED_SECRET = '********';

/** The whole document: one object per registered section. */
export type SettingsDocument = Record<string, Record<string, unknown>>;
