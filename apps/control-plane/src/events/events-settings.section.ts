import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsInt, IsNumber, IsOptional, IsString, Length, Matches, Max, Min, ValidateNested } from 'class-validator';
import { defaultEventSettings, type EventSettings } from '@gateway/events';
import type { SettingsSection } from '../settings/settings-section';

/*
 * The `events` section of /api/settings (docs/events.md): the detectors' thresholds and prices,
 * global defaults with per-route overrides. This feature owns and validates it; the types and
 * defaults are libs/events' (the replay tool uses the same ones).
 */

const DURATION = /^\d{1,9}(ms|s|m|h|d)$/;
const durationMessage = (field: string): string => `${field} must be a duration like 30s, 5m, 1d`;
const between = (field: string, min: number, max: number): string => `${field} must be between ${min} and ${max}`;

function Bounded(field: string, min: number, max: number, integer = false): PropertyDecorator {
  return (target, key) => {
    (integer ? IsInt({ message: `${field} must be an integer` }) : IsNumber({ allowNaN: false, allowInfinity: false }, { message: `${field} must be a number` }))(target, key);
    Min(min, { message: between(field, min, max) })(target, key);
    Max(max, { message: between(field, min, max) })(target, key);
  };
}

function Optional(): PropertyDecorator {
  return IsOptional();
}

export class ErrorRateSettingsDto {
  @Bounded('threshold', 0.01, 100) threshold!: number;
  @Matches(DURATION, { message: durationMessage('window') }) window!: string;
  @Bounded('minSamples', 1, 1_000_000, true) minSamples!: number;
  @Bounded('minConfidence', 0, 1) minConfidence!: number;
}

export class LatencySettingsDto {
  @IsIn(['p95', 'p99'], { message: 'quantile must be p95 or p99' }) quantile!: 'p95' | 'p99';
  @Bounded('zThreshold', 1, 20) zThreshold!: number;
  @Bounded('minRatio', 1, 100) minRatio!: number;
  @Bounded('minDeltaMs', 0, 600_000) minDeltaMs!: number;
  @Bounded('minSamples', 1, 1_000_000, true) minSamples!: number;
  @Bounded('persistence', 1, 30, true) persistence!: number;
}

export class CostBudgetsDto {
  @Optional() @Bounded('daily', 0, 1e9) daily!: number | null;
  @Optional() @Bounded('monthly', 0, 1e9) monthly!: number | null;
}

export class CostSettingsDto {
  @Bounded('threshold', 0, 1e9) threshold!: number;
  @Matches(DURATION, { message: durationMessage('window') }) window!: string;
  @Bounded('minSamples', 1, 1e9, true) minSamples!: number;
  @IsIn(['route'], { message: 'groupBy must be route' }) groupBy!: 'route';
  @Bounded('pricePerRequestUsd', 0, 1000) pricePerRequestUsd!: number;
  @Bounded('pricePerGbUsd', 0, 1e6) pricePerGbUsd!: number;
  @ValidateNested() @Type(() => CostBudgetsDto) budgets!: CostBudgetsDto;
}

export class BreakerCandidateSettingsDto {
  @Bounded('failurePercent', 1, 100) failurePercent!: number;
  @Bounded('minRequests', 1, 1e9, true) minRequests!: number;
}

export class CapacitySettingsDto {
  @Bounded('memoryPercent', 1, 100) memoryPercent!: number;
  @Optional() @Bounded('memoryLimitBytes', 1_048_576, 2 ** 50, true) memoryLimitBytes!: number | null;
  @Bounded('eventLoopLagMs', 1, 600_000) eventLoopLagMs!: number;
  @Bounded('maxConnections', 1, 10_000_000, true) maxConnections!: number;
  @Bounded('connectionsPercent', 1, 100) connectionsPercent!: number;
  /** At most the six evaluations the detector remembers. */
  @Bounded('persistence', 1, 6, true) persistence!: number;
}

export class RecoverySettingsDto {
  @Bounded('quietWindows', 1, 360, true) quietWindows!: number;
}

/** Per-route overrides: any subset of the route-level detectors' fields. */
export class PartialErrorRateDto {
  @Optional() @Bounded('threshold', 0.01, 100) threshold?: number;
  @Optional() @Matches(DURATION, { message: durationMessage('window') }) window?: string;
  @Optional() @Bounded('minSamples', 1, 1_000_000, true) minSamples?: number;
  @Optional() @Bounded('minConfidence', 0, 1) minConfidence?: number;
}

export class PartialLatencyDto {
  @Optional() @IsIn(['p95', 'p99'], { message: 'quantile must be p95 or p99' }) quantile?: 'p95' | 'p99';
  @Optional() @Bounded('zThreshold', 1, 20) zThreshold?: number;
  @Optional() @Bounded('minRatio', 1, 100) minRatio?: number;
  @Optional() @Bounded('minDeltaMs', 0, 600_000) minDeltaMs?: number;
  @Optional() @Bounded('minSamples', 1, 1_000_000, true) minSamples?: number;
  @Optional() @Bounded('persistence', 1, 30, true) persistence?: number;
}

export class PartialCostDto {
  @Optional() @Bounded('threshold', 0, 1e9) threshold?: number;
  @Optional() @Matches(DURATION, { message: durationMessage('window') }) window?: string;
  @Optional() @Bounded('minSamples', 1, 1e9, true) minSamples?: number;
  @Optional() @Bounded('pricePerRequestUsd', 0, 1000) pricePerRequestUsd?: number;
  @Optional() @Bounded('pricePerGbUsd', 0, 1e6) pricePerGbUsd?: number;
  @Optional() @ValidateNested() @Type(() => CostBudgetsDto) budgets?: CostBudgetsDto;
}

export class RouteOverridesDto {
  @IsString({ message: 'routeId must be a string' }) @Length(1, 100, { message: 'routeId must be 1 to 100 characters' }) routeId!: string;
  @Optional() @ValidateNested() @Type(() => PartialErrorRateDto) errorRate?: PartialErrorRateDto;
  @Optional() @ValidateNested() @Type(() => PartialLatencyDto) latency?: PartialLatencyDto;
  @Optional() @ValidateNested() @Type(() => PartialCostDto) cost?: PartialCostDto;
  @Optional() @ValidateNested() @Type(() => BreakerCandidateSettingsDto) breakerCandidate?: BreakerCandidateSettingsDto;
}

export class EventsSettings implements EventSettings {
  @IsBoolean({ message: 'enabled must be true or false' }) enabled!: boolean;
  @Matches(/^\d{1,4}(s|m)$/, { message: 'evaluationInterval must be a duration in seconds or minutes like 10s, 1m' }) evaluationInterval!: string;
  @Matches(DURATION, { message: durationMessage('breakerGroupWindow') }) breakerGroupWindow!: string;
  @Matches(DURATION, { message: durationMessage('breakerMuteHold') }) breakerMuteHold!: string;
  @ValidateNested() @Type(() => ErrorRateSettingsDto) errorRate!: ErrorRateSettingsDto;
  @ValidateNested() @Type(() => LatencySettingsDto) latency!: LatencySettingsDto;
  @ValidateNested() @Type(() => CostSettingsDto) cost!: CostSettingsDto;
  @ValidateNested() @Type(() => BreakerCandidateSettingsDto) breakerCandidate!: BreakerCandidateSettingsDto;
  @ValidateNested() @Type(() => CapacitySettingsDto) capacity!: CapacitySettingsDto;
  @ValidateNested() @Type(() => RecoverySettingsDto) recovery!: RecoverySettingsDto;
  @IsArray({ message: 'routes must be an array of per-route overrides' })
  @ArrayMaxSize(1000, { message: 'routes may hold at most 1000 overrides' })
  @ValidateNested({ each: true })
  @Type(() => RouteOverridesDto)
  routes!: RouteOverridesDto[];
}

export const EVENTS_SECTION_KEY = 'events';

export const EVENTS_SETTINGS_SECTION: SettingsSection<EventsSettings> = {
  key: EVENTS_SECTION_KEY,
  schema: EventsSettings,
  defaults: () => defaultEventSettings() as EventsSettings,
};
