import { Injectable } from '@nestjs/common';
import type { AuditActor } from '../audit/audit-actor';
import { SettingsReads } from '../settings/settings-reads.service';
import { SettingsWrites } from '../settings/settings-writes.service';

/**
 * One section of the settings document read and replaced on its own (GET/PUT /api/settings/ai):
 * the rest of the document is sent back as it is, so the one validation, versioning, audit and
 * secret handling of PUT /api/settings apply (a masked or left-out apiKey is kept).
 */
@Injectable()
export class SettingsSectionEndpoint {
  constructor(
    private readonly reads: SettingsReads,
    private readonly writes: SettingsWrites,
  ) {}

  async get(key: string, defaults: Record<string, unknown>): Promise<Record<string, unknown>> {
    const view = await this.reads.view();
    return { ...defaults, ...view.settings[key] };
  }

  async put(key: string, body: unknown, defaults: Record<string, unknown>, actor: AuditActor): Promise<Record<string, unknown>> {
    const view = await this.reads.view();
    const saved = await this.writes.replace({ ...view.settings, [key]: body }, actor);
    return { ...defaults, ...saved.settings[key] };
  }
}
