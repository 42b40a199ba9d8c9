import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { MessageBus } from '@gateway/events';
import { MESSAGE_BUS } from '../config/config.tokens';
import { GENERAL_SECTION_KEY, GENERAL_SETTINGS_SECTION, type GeneralSettings } from './general-settings.section';
import { SettingsSecrets } from './settings-secrets';
import { SettingsStore, type StoredSettings } from './settings-store.service';

/** Published after a settings change commits; every control plane then reloads from the database. */
export const SETTINGS_CHANGED_CHANNEL = 'gateway:settings-changed';

export interface SettingsChangedNotice {
  version: number;
}

/**
 * The settings in effect on this control plane, kept in memory and replaced whenever a change
 * commits here or a notice arrives from another control plane (the notice only says "reload":
 * the database is the truth, so a lost or reordered notice cannot leave stale values for longer
 * than the next one, and a bus reconnect reloads too). What depends on a setting subscribes with
 * onChange and applies it without a restart.
 */
@Injectable()
export class LiveSettings implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Settings');
  private stored: StoredSettings | undefined;
  private readonly listeners = new Set<(settings: LiveSettings) => void>();
  private readonly unsubscribe: Array<() => void> = [];
  private loading: Promise<void> = Promise.resolve();

  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly store: SettingsStore,
    private readonly secrets: SettingsSecrets,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.reload();
    this.unsubscribe.push(
      await this.bus.subscribe<SettingsChangedNotice>(SETTINGS_CHANGED_CHANNEL, (notice) => {
        if (typeof notice?.version === 'number' && notice.version > this.version()) void this.reload();
      }),
    );
    const off = this.bus.onReconnect?.(() => void this.reload());
    if (off !== undefined) this.unsubscribe.push(off);
  }

  onModuleDestroy(): void {
    for (const off of this.unsubscribe.splice(0)) off();
  }

  version(): number {
    return this.stored?.version ?? 0;
  }

  general(): GeneralSettings {
    return (this.stored?.document[GENERAL_SECTION_KEY] as GeneralSettings | undefined) ?? GENERAL_SETTINGS_SECTION.defaults();
  }

  /** A section's values (secrets still sealed; read them with secret()). */
  section(key: string): Record<string, unknown> | undefined {
    return this.stored?.document[key];
  }

  /** The plaintext of a secret field, for the feature that owns the section. */
  secret(section: string, field: string): string | undefined {
    return this.stored === undefined ? undefined : this.secrets.open(this.stored.document, section, field);
  }

  /** Called now with the current values, and after every change. Returns the unsubscribe function. */
  onChange(listener: (settings: LiveSettings) => void): () => void {
    this.listeners.add(listener);
    listener(this);
    return () => this.listeners.delete(listener);
  }

  /** After a change committed here: apply it, then tell the other control planes. */
  async announce(version: number): Promise<void> {
    await this.reload();
    try {
      await this.bus.publish<SettingsChangedNotice>(SETTINGS_CHANGED_CHANNEL, { version });
    } catch (error) {
      this.logger.warn(`publishing the settings change (version ${version}) failed: ${(error as Error).message}`);
    }
  }

  /** One load at a time; an older read never replaces a newer one. */
  reload(): Promise<void> {
    this.loading = this.loading.then(async () => {
      try {
        const loaded = await this.store.current();
        if (this.stored !== undefined && loaded.version < this.stored.version) return;
        const changed = loaded.version !== this.stored?.version;
        this.stored = loaded;
        if (changed) this.notify();
      } catch (error) {
        this.logger.warn(`reloading settings failed, keeping version ${this.version()}: ${(error as Error).message}`);
      }
    });
    return this.loading;
  }

  private notify(): void {
    for (const listener of this.listeners) {
      try {
        listener(this);
      } catch (error) {
        this.logger.error(`applying settings version ${this.version()} failed: ${(error as Error).message}`);
      }
    }
  }
}
