import type { FieldError } from '@gateway/route-model';
import type { EventFacts } from '../gateway-events/event-facts';

/** One action of a runbook as stored: its type and that type's own parameters. */
export interface RunbookActionSpec {
  type: string;
  [param: string]: unknown;
}

/** What an action did (or would do, in a dry run), kept in the execution record. */
export interface ActionOutcome {
  status: 'succeeded' | 'failed';
  /** Stable reason for a failure (NO_CIRCUIT_BREAKER, NOT_IN_KUBERNETES, ...). */
  code?: string;
  message: string;
  details?: Record<string, unknown>;
  /** When the action completes itself (a held breaker is reset at the end of its duration). */
  followUpAt?: string;
  /** What undo() needs; absent when the action cannot be undone. */
  undo?: Record<string, unknown>;
}

export interface ActionContext {
  executionId: string;
  facts: EventFacts;
}

/**
 * A runbook action type: a unit of one shape, like a data-plane policy. The engine only knows this
 * interface, so a new type is a new `*.action.ts` registered in RUNBOOK_ACTION_UNITS.
 */
export interface RunbookAction {
  readonly type: string;
  /** Every bad parameter of one action, each named `${field}.<param>`. */
  validate(action: RunbookActionSpec, field: string): FieldError[];
  /** A sentence saying what run() would do with this event (dry run, approval requests). */
  describe(action: RunbookActionSpec, context: ActionContext): string;
  run(action: RunbookActionSpec, context: ActionContext): Promise<ActionOutcome>;
  /** Called once at `followUpAt`. */
  followUp?(outcome: ActionOutcome, context: ActionContext): Promise<string>;
  /** Reverts what run() did, from `outcome.undo`; says what it did. */
  undo?(outcome: ActionOutcome, context: ActionContext): Promise<string>;
}

/** Nest token of the list of action units. */
export const RUNBOOK_ACTION_UNITS = Symbol('RUNBOOK_ACTION_UNITS');

export function fieldError(field: string, message: string): FieldError {
  return { field, message, code: 'VALIDATION_ERROR' };
}

/** An integer parameter within bounds, or the error naming it; `undefined` allowed when optional. */
export function intParam(action: RunbookActionSpec, param: string, field: string, bounds: { min: number; max: number; optional?: boolean }): FieldError[] {
  const value = action[param];
  if (value === undefined && bounds.optional === true) return [];
  if (!Number.isSafeInteger(value) || (value as number) < bounds.min || (value as number) > bounds.max) {
    return [fieldError(`${field}.${param}`, `${field}.${param} must be an integer from ${bounds.min} to ${bounds.max}`)];
  }
  return [];
}

/** Parameters a type does not know are refused by name, so a typo never passes silently. */
export function unknownParams(action: RunbookActionSpec, field: string, known: readonly string[]): FieldError[] {
  return Object.keys(action)
    .filter((key) => key !== 'type' && !known.includes(key))
    .map((key) => fieldError(`${field}.${key}`, `${field}.${key} is not a parameter of ${action.type} (known: ${known.join(', ')})`));
}
