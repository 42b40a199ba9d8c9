import type { EventFacts } from '../gateway-events/event-facts';
import type { RunbookTrigger } from './runbook-definition';

/** Spec 6.2: above this confidence a runbook that needs no approval runs at once. */
export const AUTO_RUN_CONFIDENCE = 0.8;

/** Whether an event matches a trigger: its kind, then every condition the trigger sets. */
export function triggerMatches(trigger: RunbookTrigger, facts: EventFacts): boolean {
  if (trigger.eventType !== facts.type) return false;
  const c = trigger.conditions;
  if (c.confidenceMin !== undefined && facts.confidence < c.confidenceMin) return false;
  if (c.errorRateMin !== undefined && (facts.errorRate === undefined || facts.errorRate < c.errorRateMin)) return false;
  if (c.resourceType !== undefined && facts.resourceType !== c.resourceType) return false;
  if (c.routeId !== undefined && !facts.routeIds.includes(c.routeId)) return false;
  if (c.upstream !== undefined && !facts.upstreams.includes(c.upstream)) return false;
  return true;
}

/** Runs at once only without an approval requirement and with a confidence strictly above 0.8. */
export function runsWithoutApproval(requiresApproval: boolean, facts: EventFacts): boolean {
  return !requiresApproval && facts.confidence > AUTO_RUN_CONFIDENCE;
}
