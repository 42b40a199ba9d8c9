import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsInt, IsOptional, IsString, Length, Max, Min, ValidateBy, ValidateNested } from 'class-validator';
import { ROUTE_DEFAULTS, routeNumberBounds } from '@gateway/route-model';
import { LOG_LEVELS, MAX_TOKEN_LIFETIME_SECONDS, type LogLevel } from '../config/control-plane-config';
import type { SettingsSection } from './settings-section';
import { DisplayText, isHttpOrigin, NormalizedOrigins } from './settings-sanitizers';

/** The route model's own bounds (decision 8), not a copy of them. */
const REQUEST_TIMEOUT = routeNumberBounds('timeout.request');
const RETRY_ATTEMPTS = routeNumberBounds('retry.attempts');

/** What a route gets when its definition leaves these out (the route model's bounds and defaults). */
export class RouteDefaultsSettings {
  @IsInt({ message: 'requestTimeoutMs must be an integer' })
  @Min(REQUEST_TIMEOUT.min, { message: `requestTimeoutMs must be between ${REQUEST_TIMEOUT.min} and ${REQUEST_TIMEOUT.max}` })
  @Max(REQUEST_TIMEOUT.max, { message: `requestTimeoutMs must be between ${REQUEST_TIMEOUT.min} and ${REQUEST_TIMEOUT.max}` })
  requestTimeoutMs!: number;

  @IsInt({ message: 'retryAttempts must be an integer' })
  @Min(RETRY_ATTEMPTS.min, { message: `retryAttempts must be between ${RETRY_ATTEMPTS.min} and ${RETRY_ATTEMPTS.max}` })
  @Max(RETRY_ATTEMPTS.max, { message: `retryAttempts must be between ${RETRY_ATTEMPTS.min} and ${RETRY_ATTEMPTS.max}` })
  retryAttempts!: number;
}

export class GeneralSettings {
  /** Shown in the admin UI's title bar: a display field, so markup is stripped. */
  @DisplayText()
  @IsString({ message: 'instanceName must be a string' })
  @Length(1, 100, { message: 'instanceName must be 1 to 100 characters (after removing markup)' })
  instanceName!: string;

  @ValidateNested()
  @Type(() => RouteDefaultsSettings)
  routeDefaults!: RouteDefaultsSettings;

  @IsInt({ message: 'tokenLifetimeSeconds must be an integer' })
  @Min(300, { message: `tokenLifetimeSeconds must be between 300 and ${MAX_TOKEN_LIFETIME_SECONDS}` })
  @Max(MAX_TOKEN_LIFETIME_SECONDS, { message: `tokenLifetimeSeconds must be between 300 and ${MAX_TOKEN_LIFETIME_SECONDS}` })
  tokenLifetimeSeconds!: number;

  /** Added to ALLOWED_ORIGINS (never replacing it: an operator's origins stay reachable). */
  @NormalizedOrigins()
  @IsArray({ message: 'allowedOrigins must be an array of origins' })
  @ArrayMaxSize(100, { message: 'allowedOrigins may hold at most 100 origins' })
  @ValidateBy({ name: 'isHttpOrigin', validator: { validate: (value: unknown) => isHttpOrigin(value), defaultMessage: () => 'allowedOrigins entries must be origins (http(s)://host[:port])' } }, { each: true })
  allowedOrigins!: string[];

  /** null: LOG_LEVEL decides. */
  @IsOptional()
  @IsIn(LOG_LEVELS as unknown as LogLevel[], { message: `logLevel must be one of: ${LOG_LEVELS.join(', ')} (or null for LOG_LEVEL)` })
  logLevel!: LogLevel | null;

  @IsInt({ message: 'eventRetentionDays must be an integer' })
  @Min(1, { message: 'eventRetentionDays must be between 1 and 3650' })
  @Max(3650, { message: 'eventRetentionDays must be between 1 and 3650' })
  eventRetentionDays!: number;

  @IsInt({ message: 'webhookDeliveryRetentionDays must be an integer' })
  @Min(1, { message: 'webhookDeliveryRetentionDays must be between 1 and 3650' })
  @Max(3650, { message: 'webhookDeliveryRetentionDays must be between 1 and 3650' })
  webhookDeliveryRetentionDays!: number;
}

export const GENERAL_SECTION_KEY = 'general';

export const GENERAL_SETTINGS_SECTION: SettingsSection<GeneralSettings> = {
  key: GENERAL_SECTION_KEY,
  schema: GeneralSettings,
  defaults: () => ({
    instanceName: 'API Gateway',
    routeDefaults: { requestTimeoutMs: ROUTE_DEFAULTS.timeout.request, retryAttempts: ROUTE_DEFAULTS.retry.attempts },
    tokenLifetimeSeconds: 86_400,
    allowedOrigins: [],
    logLevel: null,
    eventRetentionDays: 30,
    webhookDeliveryRetentionDays: 30,
  }),
};
