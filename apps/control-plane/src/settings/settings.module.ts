import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LiveSettings } from './live-settings.service';
import { SettingsReads } from './settings-reads.service';
import { SettingsSecrets } from './settings-secrets';
import { SettingsSectionRegistry } from './settings-sections.registry';
import { SettingsStore } from './settings-store.service';
import { SettingsWrites } from './settings-writes.service';
import { SettingsController } from './settings.controller';
import { SettingsVersionEntity } from './settings-version.entity';

/**
 * `/api/settings` and the settings in effect (docs/settings.md). Exports LiveSettings (what other
 * features read and follow) and the section registry (where they add their own section).
 */
@Module({
  imports: [TypeOrmModule.forFeature([SettingsVersionEntity])],
  controllers: [SettingsController],
  providers: [SettingsSectionRegistry, SettingsStore, SettingsSecrets, SettingsReads, SettingsWrites, LiveSettings],
  // SettingsReads/Writes: a feature's own section endpoint (/api/settings/ai) reads and saves through them.
  exports: [LiveSettings, SettingsSectionRegistry, SettingsReads, SettingsWrites],
})
export class SettingsModule {}
