import type { ResultSubject } from '@gateway/events';
import type { AuditEntry } from '../audit/audit-log.service';
import { DomainError } from '../common/domain-error';
import type { AuditActor } from '../audit/audit-actor';
import type { Dispatched } from './command-dispatcher.service';

/** The audit entry of an action on the data planes: who, what, on which route, and who answered. */
export function actionAuditEntry<S extends ResultSubject>(actor: AuditActor, action: string, routeId: string, dispatched: Dispatched<S>, details: Record<string, unknown>): AuditEntry {
  return {
    actor: actor.email,
    action,
    target: routeId,
    ip: actor.ip,
    details: { answered: dispatched.replies.map((r) => r.instanceId), missing: dispatched.missing, ...details },
  };
}

/**
 * Actions (trip, reset, purge) succeed only when every live data plane applied them. Otherwise
 * 503 DATA_PLANES_UNAVAILABLE: the action was applied on the data planes that answered (listed)
 * and, being idempotent, can simply be repeated.
 */
export function requireEveryAnswer<S extends ResultSubject>(dispatched: Dispatched<S>): void {
  if (dispatched.replies.length > 0 && dispatched.missing.length === 0) return;
  const answered = dispatched.replies.map((r) => r.instanceId);
  throw new DomainError(
    'DATA_PLANES_UNAVAILABLE',
    answered.length === 0 ? 'No data plane answered' : 'Not every data plane answered; the action was applied on those that did and can be repeated',
    { answered, missing: dispatched.missing },
  );
}
