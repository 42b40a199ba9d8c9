import { Injectable, Logger } from '@nestjs/common';
import type { AuditActor } from '../audit/audit-actor';
import { DomainError } from '../common/domain-error';
import { LiveSettings } from './live-settings.service';
import { diffSettings } from './settings-diff';
import { validateSettingsDocument } from './settings-document.validator';
import { SettingsReads } from './settings-reads.service';
import { SettingsSecrets } from './settings-secrets';
import { SettingsSectionRegistry } from './settings-sections.registry';
import { SettingsStore } from './settings-store.service';
import type { SettingsView } from './settings-view';

/** PUT (replaces the sections it sends) and restore: each saves a new version, audited with what changed, and applied everywhere. */
@Injectable()
export class SettingsWrites {
  private readonly logger = new Logger('Settings');

  constructor(
    private readonly sections: SettingsSectionRegistry,
    private readonly store: SettingsStore,
    private readonly secrets: SettingsSecrets,
    private readonly reads: SettingsReads,
    private readonly live: LiveSettings,
  ) {}

  async replace(raw: unknown, actor: AuditActor): Promise<SettingsView> {
    const validation = validateSettingsDocument(raw, this.sections.all());
    if (!validation.ok) throw new DomainError('VALIDATION_ERROR', validation.errors[0]?.message, { fields: validation.errors });
    const current = await this.store.current();
    // Sections the body leaves out keep their stored values (secrets still sealed).
    const next = { ...current.document, ...this.secrets.seal(validation.document, current.document) };
    const changes = diffSettings(current.document, next, (section, field) => this.secrets.isSecret(section, field));
    // Nothing changed: no new version, nothing to audit or apply.
    if (changes.length === 0) return this.reads.view();
    const version = await this.store.append(next, actor.email, null, (saved) => ({
      actor: actor.email,
      action: 'settings.update',
      target: `settings v${saved}`,
      ip: actor.ip,
      details: { version: saved, previousVersion: current.version, changes },
    }));
    this.logger.log(`settings version ${version} saved by ${actor.email}: ${changes.map((change) => change.field).join(', ')}`);
    await this.live.announce(version);
    return this.reads.view();
  }

  async restore(restoreVersion: number, actor: AuditActor): Promise<SettingsView> {
    const wanted = await this.store.find(restoreVersion);
    if (wanted === undefined) throw new DomainError('SETTINGS_VERSION_NOT_FOUND', undefined, { restoreVersion });
    const current = await this.store.current();
    const changes = diffSettings(current.document, wanted.document, (section, field) => this.secrets.isSecret(section, field));
    const version = await this.store.append(wanted.document, actor.email, restoreVersion, (saved) => ({
      actor: actor.email,
      action: 'settings.restore',
      target: `settings v${saved}`,
      ip: actor.ip,
      details: { version: saved, previousVersion: current.version, restoredFrom: restoreVersion, changes },
    }));
    this.logger.log(`settings version ${restoreVersion} restored as version ${version} by ${actor.email}`);
    await this.live.announce(version);
    return this.reads.view();
  }
}
