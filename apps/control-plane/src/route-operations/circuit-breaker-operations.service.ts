import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { AuditLogService } from '../audit/audit-log.service';
import { DomainError } from '../common/domain-error';
import type { AuditActor } from '../audit/audit-actor';
import { RouteReads } from '../routes/route-reads.service';
import { BreakerHoldEntity } from './breaker-hold.entity';
import { actionAuditEntry, requireEveryAnswer } from './action-outcome';
import { CommandDispatcher } from './command-dispatcher.service';
import { toCircuitBreakerResponse, type CircuitBreakerResponse } from './route-operation.mapper';

/** Manual Trip / Reset (spec 3.1) on every data plane, and the breaker's status record (spec 2.7). */
@Injectable()
export class CircuitBreakerOperations {
  constructor(
    private readonly routes: RouteReads,
    private readonly dispatcher: CommandDispatcher,
    private readonly audit: AuditLogService,
    @InjectRepository(BreakerHoldEntity) private readonly holds: Repository<BreakerHoldEntity>,
  ) {}

  async status(routeId: string): Promise<CircuitBreakerResponse> {
    await this.routes.get(routeId);
    const dispatched = await this.dispatcher.dispatch({ kind: 'status-query', routeId, subject: 'circuit-breaker' }, 'circuit-breaker');
    return toCircuitBreakerResponse(routeId, dispatched);
  }

  async apply(routeId: string, action: 'trip' | 'reset', actor: AuditActor): Promise<CircuitBreakerResponse> {
    await this.routes.get(routeId);
    // A manual reset ends a runbook's hold too: an operator's decision wins over the automation.
    if (action === 'reset') await this.holds.delete({ routeId });
    const dispatched = await this.dispatcher.dispatch({ kind: 'circuit-breaker', routeId, action }, 'circuit-breaker');
    const response = toCircuitBreakerResponse(routeId, dispatched);
    await this.audit.record(actionAuditEntry(actor, `route.circuit-breaker.${action}`, routeId, dispatched, { state: response.state }));
    requireEveryAnswer(dispatched);
    if (!response.enabled) throw new DomainError('NO_CIRCUIT_BREAKER');
    return response;
  }
}
