import type { FieldError } from '@gateway/route-model';
import { fieldError, type RunbookAction, type RunbookActionSpec } from './runbook-action';

export interface RunbookTrigger {
  /** An event kind (ERROR_RATE_SPIKE, circuit_breaker.opened, ...) */
  eventType: string;
  conditions: RunbookConditions;
}

export interface RunbookConditions {
  confidenceMin?: number;
  errorRateMin?: number;
  resourceType?: string;
  routeId?: string;
  upstream?: string;
}

export interface RunbookSafety {
  requiresApproval: boolean;
  maxExecutionsPerHour: number;
  /** Undo what can be undone this long after the run; null: never. */
  rollbackAfterMinutes: number | null;
  /** Record what would run, run nothing. */
  dryRun: boolean;
}

export interface RunbookDefinition {
  name: string;
  enabled: boolean;
  trigger: RunbookTrigger;
  actions: RunbookActionSpec[];
  safety: RunbookSafety;
}

export const SAFETY_DEFAULTS: RunbookSafety = { requiresApproval: true, maxExecutionsPerHour: 3, rollbackAfterMinutes: null, dryRun: false };
const TOP_FIELDS = ['name', 'enabled', 'trigger', 'actions', 'safety'];
const CONDITION_FIELDS = ['confidence.min', 'errorRate.min', 'resourceType', 'routeId', 'upstream'];
const MAX_ACTIONS = 10;

export type RunbookRead = { ok: true; value: RunbookDefinition } | { ok: false; errors: FieldError[] };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function shortString(value: unknown, max: number, pattern?: RegExp): value is string {
  return typeof value === 'string' && value.trim().length > 0 && value.length <= max && (pattern === undefined || pattern.test(value));
}

/**
 * A whole runbook from an untrusted body, every bad field named at once (`trigger.eventType`,
 * `actions[1].duration`, `safety.maxExecutionsPerHour`). Conditions take the dotted
 * names (`confidence.min`) as keys; actions are checked by their own unit.
 */
export function readRunbook(raw: unknown, units: ReadonlyMap<string, RunbookAction>): RunbookRead {
  if (!isRecord(raw)) return { ok: false, errors: [fieldError('body', 'body must be a JSON object')] };
  const errors: FieldError[] = [];
  for (const key of Object.keys(raw)) if (!TOP_FIELDS.includes(key)) errors.push(fieldError(key, `${key} is not a runbook field (known: ${TOP_FIELDS.join(', ')})`));
  const { name, enabled = true, trigger, actions, safety = {} } = raw;
  if (!shortString(name, 100)) errors.push(fieldError('name', 'name is required: 1 to 100 characters'));
  if (typeof enabled !== 'boolean') errors.push(fieldError('enabled', 'enabled must be a boolean'));
  const readTrigger = readTriggerField(trigger, errors);
  const readActions = readActionsField(actions, units, errors);
  const readSafety = readSafetyField(safety, errors);
  if (errors.length > 0 || readTrigger === undefined || readActions === undefined || readSafety === undefined) return { ok: false, errors };
  return { ok: true, value: { name: (name as string).trim(), enabled: enabled as boolean, trigger: readTrigger, actions: readActions, safety: readSafety } };
}

function readTriggerField(trigger: unknown, errors: FieldError[]): RunbookTrigger | undefined {
  if (!isRecord(trigger)) {
    errors.push(fieldError('trigger', 'trigger is required: { eventType, conditions }'));
    return undefined;
  }
  const before = errors.length;
  const { eventType, conditions = {} } = trigger;
  for (const key of Object.keys(trigger)) if (key !== 'eventType' && key !== 'conditions') errors.push(fieldError(`trigger.${key}`, `trigger.${key} is not a trigger field (known: eventType, conditions)`));
  if (!shortString(eventType, 100, /^[A-Za-z0-9_.-]+$/)) errors.push(fieldError('trigger.eventType', 'trigger.eventType is required: an event kind such as ERROR_RATE_SPIKE or circuit_breaker.opened'));
  const read: RunbookConditions = {};
  if (!isRecord(conditions)) {
    errors.push(fieldError('trigger.conditions', 'trigger.conditions must be an object'));
  } else {
    for (const key of Object.keys(conditions)) if (!CONDITION_FIELDS.includes(key)) errors.push(fieldError(`trigger.conditions.${key}`, `trigger.conditions.${key} is not a condition (known: ${CONDITION_FIELDS.join(', ')})`));
    const ratio = (key: string): number | undefined => {
      const value = conditions[key];
      if (value === undefined) return undefined;
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) errors.push(fieldError(`trigger.conditions.${key}`, `trigger.conditions.${key} must be a number from 0 to 1`));
      return value as number;
    };
    const confidenceMin = ratio('confidence.min');
    const errorRateMin = ratio('errorRate.min');
    if (confidenceMin !== undefined) read.confidenceMin = confidenceMin;
    if (errorRateMin !== undefined) read.errorRateMin = errorRateMin;
    for (const key of ['resourceType', 'routeId', 'upstream'] as const) {
      const value = conditions[key];
      if (value === undefined) continue;
      if (!shortString(value, 100)) errors.push(fieldError(`trigger.conditions.${key}`, `trigger.conditions.${key} must be a string of 1 to 100 characters`));
      else read[key] = value;
    }
  }
  return errors.length > before ? undefined : { eventType: eventType as string, conditions: read };
}

function readActionsField(actions: unknown, units: ReadonlyMap<string, RunbookAction>, errors: FieldError[]): RunbookActionSpec[] | undefined {
  if (!Array.isArray(actions) || actions.length === 0 || actions.length > MAX_ACTIONS) {
    errors.push(fieldError('actions', `actions must be an array of 1 to ${MAX_ACTIONS} actions`));
    return undefined;
  }
  const before = errors.length;
  actions.forEach((action: unknown, index) => {
    const field = `actions[${index}]`;
    if (!isRecord(action)) {
      errors.push(fieldError(field, `${field} must be an object with a type`));
      return;
    }
    const unit = typeof action['type'] === 'string' ? units.get(action['type']) : undefined;
    if (unit === undefined) errors.push(fieldError(`${field}.type`, `${field}.type must be one of ${[...units.keys()].join(', ')}`));
    else errors.push(...unit.validate(action as RunbookActionSpec, field));
  });
  return errors.length > before ? undefined : (actions as RunbookActionSpec[]);
}

function readSafetyField(safety: unknown, errors: FieldError[]): RunbookSafety | undefined {
  if (!isRecord(safety)) {
    errors.push(fieldError('safety', 'safety must be an object'));
    return undefined;
  }
  const before = errors.length;
  const known = Object.keys(SAFETY_DEFAULTS);
  for (const key of Object.keys(safety)) if (!known.includes(key)) errors.push(fieldError(`safety.${key}`, `safety.${key} is not a safety field (known: ${known.join(', ')})`));
  const read = { ...SAFETY_DEFAULTS, ...safety } as RunbookSafety;
  if (typeof read.requiresApproval !== 'boolean') errors.push(fieldError('safety.requiresApproval', 'safety.requiresApproval must be a boolean'));
  if (typeof read.dryRun !== 'boolean') errors.push(fieldError('safety.dryRun', 'safety.dryRun must be a boolean'));
  if (!Number.isSafeInteger(read.maxExecutionsPerHour) || read.maxExecutionsPerHour < 1 || read.maxExecutionsPerHour > 100) errors.push(fieldError('safety.maxExecutionsPerHour', 'safety.maxExecutionsPerHour must be an integer from 1 to 100'));
  const rollback = read.rollbackAfterMinutes;
  // Fractions allowed (0.5 = 30 s): a breaker hold of seconds may want a rollback within the minute.
  if (rollback !== null && (typeof rollback !== 'number' || !Number.isFinite(rollback) || rollback < 0.05 || rollback > 10_080)) errors.push(fieldError('safety.rollbackAfterMinutes', 'safety.rollbackAfterMinutes must be a number of minutes from 0.05 to 10080 (a week), or null'));
  return errors.length > before ? undefined : read;
}
