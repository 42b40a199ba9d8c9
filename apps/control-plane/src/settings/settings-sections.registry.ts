import { Injectable } from '@nestjs/common';
import { GENERAL_SETTINGS_SECTION } from './general-settings.section';
import type { SettingsSection } from './settings-section';

/**
 * The sections of the settings document. `general` is built in; a feature adds its own section
 * (events, AI, SSO ...) from its module's onModuleInit, with its own validator class, so settings
 * never restates another feature's rules.
 */
@Injectable()
export class SettingsSectionRegistry {
  private readonly sections = new Map<string, SettingsSection>([[GENERAL_SETTINGS_SECTION.key, GENERAL_SETTINGS_SECTION as SettingsSection]]);

  register<T extends object>(section: SettingsSection<T>): void {
    if (!/^[a-z][a-zA-Z0-9]{0,31}$/.test(section.key)) throw new Error(`settings section key ${JSON.stringify(section.key)} must be a camelCase word`);
    if (this.sections.has(section.key)) throw new Error(`settings section ${section.key} is registered twice`);
    this.sections.set(section.key, section as unknown as SettingsSection);
  }

  get(key: string): SettingsSection | undefined {
    return this.sections.get(key);
  }

  all(): SettingsSection[] {
    return [...this.sections.values()];
  }
}
