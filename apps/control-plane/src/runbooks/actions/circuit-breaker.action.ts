import { Injectable } from '@nestjs/common';
import type { FieldError } from '@gateway/route-model';
import { DomainError } from '../../common/domain-error';
import { BreakerHolds } from '../../route-operations/breaker-holds.service';
import { fieldError, intParam, unknownParams, type ActionContext, type ActionOutcome, type RunbookAction, type RunbookActionSpec } from '../runbook-action';

const PARAMS = ['operation', 'duration', 'routeId'];
/** A day: a longer hold is an outage someone should decide on, not automation. */
const MAX_DURATION_SECONDS = 86_400;

function routesOf(action: RunbookActionSpec, context: ActionContext): string[] {
  return typeof action['routeId'] === 'string' ? [action['routeId']] : context.facts.routeIds;
}

/**
 * CIRCUIT_BREAKER `{ operation: OPEN, duration, routeId? }`: holds the breaker of the event's
 * route (or `routeId`) OPEN with no HALF_OPEN test for `duration` seconds on every data plane,
 * then resets it. A route without a breaker fails with NO_CIRCUIT_BREAKER.
 */
@Injectable()
export class CircuitBreakerAction implements RunbookAction {
  readonly type = 'CIRCUIT_BREAKER';

  constructor(private readonly holds: BreakerHolds) {}

  validate(action: RunbookActionSpec, field: string): FieldError[] {
    const errors = [...unknownParams(action, field, PARAMS), ...intParam(action, 'duration', field, { min: 1, max: MAX_DURATION_SECONDS })];
    if (action['operation'] !== 'OPEN') errors.push(fieldError(`${field}.operation`, `${field}.operation must be OPEN`));
    const routeId = action['routeId'];
    if (routeId !== undefined && (typeof routeId !== 'string' || routeId.length === 0 || routeId.length > 64)) errors.push(fieldError(`${field}.routeId`, `${field}.routeId must be a route id (1 to 64 characters)`));
    return errors;
  }

  describe(action: RunbookActionSpec, context: ActionContext): string {
    const routes = routesOf(action, context);
    return routes.length === 0 ? 'open a circuit breaker: the event names no route' : `hold the circuit breaker of ${routes.join(', ')} OPEN for ${String(action['duration'])} s, then reset it`;
  }

  async run(action: RunbookActionSpec, context: ActionContext): Promise<ActionOutcome> {
    const routes = routesOf(action, context);
    if (routes.length === 0) return { status: 'failed', code: 'NO_ROUTE', message: 'the event names no route and the action sets no routeId' };
    const until = new Date(Date.now() + (action['duration'] as number) * 1000);
    const held: string[] = [];
    const problems: Array<{ routeId: string; code: string }> = [];
    const planes: Record<string, string[]> = {};
    for (const routeId of routes) {
      try {
        const answer = await this.holds.hold(routeId, until, context.executionId);
        planes[routeId] = answer.dataPlanes.filter((p) => p.breaker?.state === 'OPEN').map((p) => p.instanceId);
        if (answer.dataPlanes.length === 0) problems.push({ routeId, code: 'DATA_PLANES_UNAVAILABLE' });
        else if (!answer.enabled) problems.push({ routeId, code: 'NO_CIRCUIT_BREAKER' });
        else held.push(routeId);
      } catch (error) {
        problems.push({ routeId, code: error instanceof DomainError ? error.code : 'INTERNAL_ERROR' });
      }
    }
    const details = { routes: held, until: until.toISOString(), openOn: planes, problems };
    if (held.length === 0) return { status: 'failed', code: problems[0]?.code ?? 'NO_CIRCUIT_BREAKER', message: `no breaker held: ${problems.map((p) => `${p.routeId} ${p.code}`).join(', ')}`, details };
    return {
      status: 'succeeded',
      message: `breaker held OPEN until ${until.toISOString()} on ${held.join(', ')}`,
      details,
      followUpAt: until.toISOString(),
      undo: { routes: held },
    };
  }

  followUp(outcome: ActionOutcome, context: ActionContext): Promise<string> {
    return this.release(outcome, context, 'duration ended');
  }

  undo(outcome: ActionOutcome, context: ActionContext): Promise<string> {
    return this.release(outcome, context, 'rolled back');
  }

  private async release(outcome: ActionOutcome, context: ActionContext, why: string): Promise<string> {
    const routes = Array.isArray(outcome.undo?.['routes']) ? (outcome.undo['routes'] as string[]) : [];
    for (const routeId of routes) await this.holds.release(routeId, context.executionId);
    return `${why}: breaker reset on ${routes.join(', ')}`;
  }
}
