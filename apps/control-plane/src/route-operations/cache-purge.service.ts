import { Injectable } from '@nestjs/common';
import { AuditLogService } from '../audit/audit-log.service';
import type { AuditActor } from '../audit/audit-actor';
import { RouteReads } from '../routes/route-reads.service';
import { actionAuditEntry, requireEveryAnswer } from './action-outcome';
import { CommandDispatcher } from './command-dispatcher.service';

/** `DELETE /api/routes/:id/cache`: drops the route's response-cache entries on every data plane. */
@Injectable()
export class CachePurge {
  constructor(
    private readonly routes: RouteReads,
    private readonly dispatcher: CommandDispatcher,
    private readonly audit: AuditLogService,
  ) {}

  async purge(routeId: string, actor: AuditActor): Promise<void> {
    await this.routes.get(routeId);
    const dispatched = await this.dispatcher.dispatch({ kind: 'cache-purge', routeId }, 'cache');
    const purged = dispatched.replies.reduce((sum, r) => sum + r.result.purged, 0);
    await this.audit.record(actionAuditEntry(actor, 'route.cache.purge', routeId, dispatched, { purged }));
    requireEveryAnswer(dispatched);
  }
}
