import { Injectable } from '@nestjs/common';
import { SettingsSecrets } from './settings-secrets';
import { SettingsStore, type SettingsVersionSummary } from './settings-store.service';
import type { SettingsView } from './settings-view';

@Injectable()
export class SettingsReads {
  constructor(
    private readonly store: SettingsStore,
    private readonly secrets: SettingsSecrets,
  ) {}

  async view(): Promise<SettingsView> {
    const current = await this.store.current();
    return { version: current.version, changedAt: current.changedAt, actor: current.actor, settings: this.secrets.mask(current.document) };
  }

  versions(limit: number, offset: number): Promise<{ items: SettingsVersionSummary[]; total: number }> {
    return this.store.list(limit, offset);
  }
}
