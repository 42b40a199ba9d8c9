import type { SettingsDocument } from './settings-section';

export interface SettingsChange {
  field: string;
  from?: unknown;
  to?: unknown;
  /** A secret changed: never its values, not even sealed. */
  secret?: true;
}

/**
 * What a change did, field by field (`general.logLevel`), for the audit log. Secret fields are
 * named with `secret: true` and no value; nested objects are compared field by field.
 */
export function diffSettings(before: SettingsDocument, after: SettingsDocument, isSecret: (section: string, field: string) => boolean): SettingsChange[] {
  const changes: SettingsChange[] = [];
  for (const section of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) {
    const from = before[section] ?? {};
    const to = after[section] ?? {};
    for (const field of [...new Set([...Object.keys(from), ...Object.keys(to)])].sort()) {
      if (isSecret(section, field)) {
        if (from[field] !== to[field]) changes.push({ field: `${section}.${field}`, secret: true });
        continue;
      }
      diffValue(`${section}.${field}`, from[field], to[field], changes);
    }
  }
  return changes;
}

function diffValue(path: string, from: unknown, to: unknown, changes: SettingsChange[]): void {
  if (isObject(from) && isObject(to)) {
    for (const key of [...new Set([...Object.keys(from), ...Object.keys(to)])].sort()) diffValue(`${path}.${key}`, from[key], to[key], changes);
    return;
  }
  if (JSON.stringify(from) !== JSON.stringify(to)) changes.push({ field: path, ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }) });
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
