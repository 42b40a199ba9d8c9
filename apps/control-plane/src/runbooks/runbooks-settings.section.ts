import { Type } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, IsString, Length, Matches, Max, Min, ValidateNested } from 'class-validator';
import { KUBERNETES_TARGET_DEFAULTS } from './kubernetes/kubernetes-target';
import type { SettingsSection } from '../settings/settings-section';

const NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

/** What SCALE_RESOURCE and RESTART_POD work on (docs/runbooks.md "Kubernetes"). */
export class KubernetesTargetSettings {
  @IsOptional()
  @IsString({ message: 'kubeconfig must be a file path, or null for the in-cluster service account' })
  @Length(1, 1024, { message: 'kubeconfig must be 1 to 1024 characters' })
  kubeconfig!: string | null;

  @Matches(NAME, { message: 'namespace must be a Kubernetes name' })
  namespace!: string;

  @Matches(NAME, { message: 'deployment must be a Kubernetes name' })
  deployment!: string;

  @IsOptional()
  @Matches(NAME, { message: 'hpa must be a Kubernetes name, or null' })
  hpa!: string | null;

  @IsString({ message: 'podSelector must be a label selector' })
  @Length(1, 500, { message: 'podSelector must be 1 to 500 characters' })
  podSelector!: string;

  @IsInt({ message: 'minReplicas must be an integer' })
  @Min(0, { message: 'minReplicas must be between 0 and 1000' })
  @Max(1000, { message: 'minReplicas must be between 0 and 1000' })
  minReplicas!: number;

  @IsInt({ message: 'maxReplicas must be an integer' })
  @Min(1, { message: 'maxReplicas must be between 1 and 1000' })
  @Max(1000, { message: 'maxReplicas must be between 1 and 1000' })
  maxReplicas!: number;
}

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

  @ValidateNested()
  @Type(() => KubernetesTargetSettings)
  kubernetes!: KubernetesTargetSettings;
}

export const RUNBOOKS_SECTION_KEY = 'runbooks';

export const RUNBOOKS_SETTINGS_SECTION: SettingsSection<RunbooksSettings> = {
  key: RUNBOOKS_SECTION_KEY,
  schema: RunbooksSettings,
  // Spec 8: at most 10 automatic recoveries an hour; an approval request lasts 5 minutes.
  defaults: () => ({ enabled: true, dryRun: false, maxExecutionsPerHour: 10, approvalExpirySeconds: 300, kubernetes: { ...KUBERNETES_TARGET_DEFAULTS } }),
};
