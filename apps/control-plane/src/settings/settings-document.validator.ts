import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { flattenValidationErrors } from '../common/validation.pipe';
import type { SettingsDocument, SettingsSection } from './settings-section';

export interface SettingsFieldError {
  field: string;
  message: string;
  code: string;
}

/** A validated (and sanitized) document, or every field error of every section at once (decision 3). */
export type SettingsValidation = { ok: true; document: SettingsDocument } | { ok: false; errors: SettingsFieldError[] };

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The sections present in a PUT, validated: each replaces its stored section, a field left out
 * taking its default (nested objects field by field). Sections left out are not in the result:
 * the caller keeps their stored values (a client that edits `general` does not turn SSO off).
 * Secret fields are checked for type only here; SettingsSecrets decides what a masked or missing
 * secret means.
 */
export function validateSettingsDocument(raw: unknown, sections: readonly SettingsSection[]): SettingsValidation {
  if (!isPlainObject(raw)) return { ok: false, errors: [{ field: 'body', message: 'settings must be a JSON object of sections', code: 'VALIDATION_ERROR' }] };
  const known = new Map(sections.map((section) => [section.key, section]));
  const errors: SettingsFieldError[] = [];
  for (const key of Object.keys(raw)) {
    if (!known.has(key)) errors.push({ field: key, message: `${key} is not a settings section (known: ${[...known.keys()].join(', ')})`, code: 'VALIDATION_ERROR' });
  }
  const document: SettingsDocument = {};
  for (const section of sections) {
    if (!(section.key in raw)) continue;
    const given = raw[section.key];
    if (!isPlainObject(given)) {
      errors.push({ field: section.key, message: `${section.key} must be an object`, code: 'VALIDATION_ERROR' });
      continue;
    }
    const secrets = new Set<string>(section.secretFields ?? []);
    // Secrets are validated by SettingsSecrets (a masked value is not the secret); here: strings or null.
    const checked = Object.fromEntries(Object.entries(given).filter(([field]) => !secrets.has(field)));
    for (const field of secrets) {
      const value = given[field];
      if (value !== undefined && value !== null && typeof value !== 'string') errors.push({ field: `${section.key}.${field}`, message: `${field} must be a string (or null to remove it)`, code: 'VALIDATION_ERROR' });
    }
    const merged = withDefaults(section.defaults() as Record<string, unknown>, checked);
    for (const field of secrets) delete merged[field];
    const instance = plainToInstance(section.schema, merged);
    const failures = validateSync(instance, { whitelist: true, forbidNonWhitelisted: true, stopAtFirstError: true, forbidUnknownValues: true });
    if (failures.length > 0) {
      errors.push(...flattenValidationErrors(failures, section.key));
      continue;
    }
    const values = { ...(instance as Record<string, unknown>) };
    for (const field of secrets) if (given[field] !== undefined) values[field] = given[field];
    document[section.key] = toPlain(values);
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, document };
}

function withDefaults(defaults: Record<string, unknown>, given: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...defaults };
  for (const [key, value] of Object.entries(given)) {
    out[key] = isPlainObject(value) && isPlainObject(defaults[key]) ? withDefaults(defaults[key], value) : value;
  }
  return out;
}

/** Class instances (nested DTOs) back to plain JSON for storage. */
function toPlain(value: Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
}
