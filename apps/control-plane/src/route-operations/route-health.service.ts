import { Injectable } from '@nestjs/common';
import { RouteReads } from '../routes/route-reads.service';
import { CommandDispatcher } from './command-dispatcher.service';
import { toRouteHealthResponse, type RouteHealthResponse } from './route-operation.mapper';

/** `GET /api/routes/:id/health`: the route's active health check and breaker on every data plane. */
@Injectable()
export class RouteHealth {
  constructor(
    private readonly routes: RouteReads,
    private readonly dispatcher: CommandDispatcher,
  ) {}

  async status(routeId: string): Promise<RouteHealthResponse> {
    await this.routes.get(routeId);
    const dispatched = await this.dispatcher.dispatch({ kind: 'status-query', routeId, subject: 'health' }, 'health');
    return toRouteHealthResponse(routeId, dispatched);
  }
}
