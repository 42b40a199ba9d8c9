import type { Runbook, RunbookAction, RunbookInput } from '../ops/ops-types';

/** Fields of the form the API's field errors land on (every other field shows above the form). */
export const RUNBOOK_FIELDS = ['name', 'enabled', 'trigger.eventType', ...['confidence.min', 'errorRate.min', 'resourceType', 'routeId', 'upstream'].map((c) => `trigger.conditions.${c}`), 'actions', 'safety.requiresApproval', 'safety.maxExecutionsPerHour', 'safety.rollbackAfterMinutes', 'safety.dryRun'] as const;

export const NUMBER_CONDITIONS = new Set(['confidence.min', 'errorRate.min']);
export const CONDITIONS: Array<{ key: string; label: string; hint: string }> = [
  { key: 'confidence.min', label: 'Minimum confidence', hint: '0 to 1; empty: any.' },
  { key: 'errorRate.min', label: 'Minimum error rate', hint: '0 to 1; empty: any.' },
  { key: 'resourceType', label: 'Resource type', hint: "The event's context.resourceType; empty: any." },
  { key: 'routeId', label: 'Route', hint: 'A route ID; empty: any route.' },
  { key: 'upstream', label: 'Upstream', hint: 'An upstream URL; empty: any.' },
];

export const EXAMPLE_ACTIONS: RunbookAction[] = [{ type: 'CIRCUIT_BREAKER', operation: 'OPEN', duration: 300 }];

/** A number box: empty leaves the field out; anything else goes as typed, so the API judges the range. */
function numberOf(value: string): number | undefined {
  return value.trim() === '' ? undefined : Number(value);
}

/**
 * The body to send from the form, or the message for the actions box when its JSON is not an array.
 * Unknown action parameters go as typed: the API names any it refuses.
 */
export function runbookInputOf(data: FormData): { input: RunbookInput } | { actionsError: string } {
  const text = (name: string): string => String(data.get(name) ?? '');
  let actions: unknown;
  try {
    actions = JSON.parse(text('actions'));
  } catch {
    return { actionsError: 'Actions must be JSON: an array of actions such as [{"type": "CIRCUIT_BREAKER", "operation": "OPEN", "duration": 300}].' };
  }
  if (!Array.isArray(actions)) return { actionsError: 'Actions must be a JSON array.' };
  const conditions: Record<string, string | number> = {};
  for (const { key } of CONDITIONS) {
    const value = text(`condition:${key}`).trim();
    if (value !== '') conditions[key] = NUMBER_CONDITIONS.has(key) ? Number(value) : value;
  }
  const maxPerHour = numberOf(text('maxExecutionsPerHour'));
  const rollback = numberOf(text('rollbackAfterMinutes'));
  return {
    input: {
      name: text('name').trim(),
      enabled: data.get('enabled') === 'on',
      trigger: { eventType: text('eventType').trim(), conditions },
      actions: actions as RunbookAction[],
      safety: {
        requiresApproval: data.get('requiresApproval') === 'on',
        dryRun: data.get('dryRun') === 'on',
        rollbackAfterMinutes: rollback ?? null,
        ...(maxPerHour === undefined ? {} : { maxExecutionsPerHour: maxPerHour }),
      },
    } as RunbookInput,
  };
}

/** The value of condition `key` of a stored runbook, as the box shows it. */
export function conditionText(runbook: Runbook | undefined, key: string): string {
  const value = (runbook?.trigger?.conditions as Record<string, unknown> | undefined)?.[key];
  return value === undefined || value === null ? '' : String(value);
}
