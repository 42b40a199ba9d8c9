import { IsBoolean, IsInt, IsOptional, IsString, IsUrl, Length, Max, Min, ValidateIf } from 'class-validator';
import { SESSION_CACHE_TTL_DEFAULT } from '@gateway/route-model';
import type { SettingsSection } from '../settings/settings-section';
import { Trimmed } from '../settings/settings-sanitizers';

/** The deadline of every call to the session service when neither settings nor proxy.yml say (docs/edge-policies.md). */
export const SESSION_SERVICE_TIMEOUT_DEFAULT_MS = 2_000;

/**
 * The `sessionService` section of /api/settings (issue 14, decision 23): the external session
 * service of management sessions, edited live. With `enabled: true` it replaces proxy.yml's
 * `authentication` block (provider, apiUrl, tenantId, sessionValidation.cacheTTL) on every control
 * plane. `apiKey` is a secret (sealed at rest, write-only, shown masked) that the control plane
 * sends as `Authorization: Bearer <apiKey>` on its create, validate and revoke calls.
 */
export class SessionServiceSettings {
  @IsBoolean({ message: 'enabled must be true or false' })
  enabled!: boolean;

  @ValidateIf((s: SessionServiceSettings) => s.enabled || s.provider !== null)
  @Trimmed()
  @IsString({ message: 'provider is required when the session service is enabled' })
  @Length(1, 64, { message: 'provider must be 1 to 64 characters' })
  provider!: string | null;

  @ValidateIf((s: SessionServiceSettings) => s.enabled || s.apiUrl !== null)
  @Trimmed()
  @IsUrl({ protocols: ['http', 'https'], require_protocol: true, require_tld: false }, { message: 'apiUrl must be an http(s) URL (required when the session service is enabled)' })
  apiUrl!: string | null;

  @IsOptional()
  @Trimmed()
  @IsString({ message: 'tenantId must be a string or null' })
  @Length(1, 256, { message: 'tenantId must be 1 to 256 characters' })
  tenantId!: string | null;

  @IsInt({ message: 'cacheTtlSeconds must be an integer' })
  @Min(0, { message: 'cacheTtlSeconds must be between 0 and 86400' })
  @Max(86_400, { message: 'cacheTtlSeconds must be between 0 and 86400' })
  cacheTtlSeconds!: number;

  @IsInt({ message: 'timeoutMs must be an integer' })
  @Min(100, { message: 'timeoutMs must be between 100 and 30000' })
  @Max(30_000, { message: 'timeoutMs must be between 100 and 30000' })
  timeoutMs!: number;
}

export const SESSION_SERVICE_SECTION_KEY = 'sessionService';

export const SESSION_SERVICE_SETTINGS_SECTION: SettingsSection<SessionServiceSettings> = {
  key: SESSION_SERVICE_SECTION_KEY,
  schema: SessionServiceSettings,
  defaults: () => ({ enabled: false, provider: null, apiUrl: null, tenantId: null, cacheTtlSeconds: SESSION_CACHE_TTL_DEFAULT, timeoutMs: SESSION_SERVICE_TIMEOUT_DEFAULT_MS }),
  secretFields: ['apiKey'],
};
