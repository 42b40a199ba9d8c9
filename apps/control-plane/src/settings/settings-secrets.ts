import { Injectable } from '@nestjs/common';
import { SecretBox } from '../encryption/secret-box';
import { MASKED_SECRET, type SettingsDocument } from './settings-section';
import { SettingsSectionRegistry } from './settings-sections.registry';

/** The associated data a secret is sealed with: a sealed value only opens in its own field. */
const contextOf = (section: string, field: string): string => `settings:${section}.${field}`;

/**
 * Secret fields are write-only: a client never reads them back, so PUT with the field left out or
 * sent as the mask keeps the stored secret, null or '' removes it, any other string replaces it.
 * Stored sealed (SecretBox), read masked.
 */
@Injectable()
export class SettingsSecrets {
  constructor(
    private readonly box: SecretBox,
    private readonly sections: SettingsSectionRegistry,
  ) {}

  /** The document to store: `next` (validated) with its secrets sealed or carried over from `stored`. */
  seal(next: SettingsDocument, stored: SettingsDocument): SettingsDocument {
    return this.mapSecrets(next, (section, field, value) => {
      if (value === undefined || value === MASKED_SECRET) return stored[section]?.[field];
      if (value === null || value === '') return undefined;
      return this.box.seal(String(value), contextOf(section, field));
    });
  }

  /** What GET shows: secrets as the mask when set, null when not. */
  mask(stored: SettingsDocument): SettingsDocument {
    return this.mapSecrets(stored, (_section, _field, value) => (value === undefined || value === null ? null : MASKED_SECRET));
  }

  /** The plaintext of one stored secret, for the feature that owns it. */
  open(stored: SettingsDocument, section: string, field: string): string | undefined {
    const value = stored[section]?.[field];
    return typeof value === 'string' ? this.box.open(value, contextOf(section, field)) : undefined;
  }

  isSecret(section: string, field: string): boolean {
    return this.sections.get(section)?.secretFields?.includes(field) === true;
  }

  private mapSecrets(document: SettingsDocument, map: (section: string, field: string, value: unknown) => unknown): SettingsDocument {
    const out: SettingsDocument = {};
    for (const [key, values] of Object.entries(document)) {
      const copy = { ...values };
      for (const field of this.sections.get(key)?.secretFields ?? []) {
        const mapped = map(key, field, values[field]);
        if (mapped === undefined) delete copy[field];
        else copy[field] = mapped;
      }
      out[key] = copy;
    }
    return out;
  }
}
