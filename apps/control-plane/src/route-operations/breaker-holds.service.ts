import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { RouteReads } from '../routes/route-reads.service';
import { BreakerHoldEntity } from './breaker-hold.entity';
import { CommandDispatcher } from './command-dispatcher.service';
import { toCircuitBreakerResponse, type CircuitBreakerResponse } from './route-operation.mapper';

/**
 * Held trips (a runbook's CIRCUIT_BREAKER action): OPEN with no HALF_OPEN test until an end time on
 * every data plane. The row is written before the command goes out, so a data plane that starts
 * in between finds the hold in its first snapshot; the command reaches the running ones.
 */
@Injectable()
export class BreakerHolds {
  constructor(
    private readonly routes: RouteReads,
    private readonly dispatcher: CommandDispatcher,
    @InjectRepository(BreakerHoldEntity) private readonly holds: Repository<BreakerHoldEntity>,
  ) {}

  async hold(routeId: string, until: Date, executionId: string): Promise<CircuitBreakerResponse> {
    await this.routes.get(routeId);
    await this.holds.upsert({ routeId, until, executionId }, ['routeId']);
    const dispatched = await this.dispatcher.dispatch({ kind: 'circuit-breaker', routeId, action: 'trip', holdUntil: until.toISOString() }, 'circuit-breaker');
    const response = toCircuitBreakerResponse(routeId, dispatched);
    // A route without a breaker has nothing to hold: no row may linger in the snapshot.
    if (dispatched.replies.length > 0 && !response.enabled) await this.holds.delete({ routeId, executionId });
    return response;
  }

  /**
   * Ends the hold `executionId` placed and resets the breaker everywhere. Undefined (nothing done)
   * when a later execution holds the route now: its hold is not this one's to end.
   */
  async release(routeId: string, executionId: string): Promise<CircuitBreakerResponse | undefined> {
    await this.holds.delete({ routeId, executionId });
    if (await this.holds.existsBy({ routeId })) return undefined;
    const dispatched = await this.dispatcher.dispatch({ kind: 'circuit-breaker', routeId, action: 'reset' }, 'circuit-breaker');
    return toCircuitBreakerResponse(routeId, dispatched);
  }
}
