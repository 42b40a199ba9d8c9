import { Injectable } from '@nestjs/common';
import { LiveSettings } from '../settings/live-settings.service';
import { RUNBOOKS_SECTION_KEY, RUNBOOKS_SETTINGS_SECTION, type RunbooksSettings } from './runbooks-settings.section';

/** The runbooks section in effect, its defaults under what was saved. */
@Injectable()
export class RunbooksSettingsReader {
  constructor(private readonly live: LiveSettings) {}

  current(): RunbooksSettings {
    return { ...RUNBOOKS_SETTINGS_SECTION.defaults(), ...(this.live.section(RUNBOOKS_SECTION_KEY) as Partial<RunbooksSettings> | undefined) };
  }
}
