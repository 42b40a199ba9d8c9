import { Injectable } from '@nestjs/common';
import { RouteReads } from '../routes/route-reads.service';
import { CommandDispatcher } from './command-dispatcher.service';
import { toRateLimitResponse, type RateLimitResponse } from './route-operation.mapper';

/** `GET /api/routes/:id/rate-limit`: the stored configuration and the usage counted by every data plane. */
@Injectable()
export class RateLimitUsageReport {
  constructor(
    private readonly routes: RouteReads,
    private readonly dispatcher: CommandDispatcher,
  ) {}

  async report(routeId: string, top: number): Promise<RateLimitResponse> {
    const route = await this.routes.get(routeId);
    const dispatched = await this.dispatcher.dispatch({ kind: 'status-query', routeId, subject: 'rate-limit' }, 'rate-limit');
    return toRateLimitResponse(routeId, route.rateLimit, dispatched, top);
  }
}
