import { IsBoolean, IsInt, Max, Min } from 'class-validator';
import type { SettingsSection } from '../settings/settings-section';

/** `runbooks` in /api/settings: the switches over every runbook (spec 8 auto-recovery limits). */
export class RunbooksSettings {
  /** The kill switch: false stops every automatic execution (matches are recorded as skipped). */
  @IsBoolean({ message: 'enabled must be a boolean' })
  enabled!: boolean;

  /** Every runbook records what it would do and does nothing. */
  @IsBoolean({ message: 'dryRun must be a boolean' })
  dryRun!: boolean;

  @IsInt({ message: 'maxExecutionsPerHour must be an integer' })
  @Min(1, { message: 'maxExecutionsPerHour must be between 1 and 1000' })
  @Max(1000, { message: 'maxExecutionsPerHour must be between 1 and 1000' })
  maxExecutionsPerHour!: number;

  @IsInt({ message: 'approvalExpirySeconds must be an integer' })
  @Min(5, { message: 'approvalExpirySeconds must be between 5 and 86400' })
  @Max(86_400, { message: 'approvalExpirySeconds must be between 5 and 86400' })
  approvalExpirySeconds!: number;
}

export const RUNBOOKS_SECTION_KEY = 'runbooks';

export const RUNBOOKS_SETTINGS_SECTION: SettingsSection<RunbooksSettings> = {
  key: RUNBOOKS_SECTION_KEY,
  schema: RunbooksSettings,
  // Spec 8: at most 10 automatic recoveries an hour; an approval request lasts 5 minutes.
  defaults: () => ({ enabled: true, dryRun: false, maxExecutionsPerHour: 10, approvalExpirySeconds: 300 }),
};
