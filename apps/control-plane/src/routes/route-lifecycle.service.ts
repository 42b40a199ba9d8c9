import { Injectable } from '@nestjs/common';
import { ROUTE_ID_PATTERN } from '@gateway/route-model';
import type { EntityManager } from 'typeorm';
import { DomainError } from '../common/domain-error';
import type { AuditActor } from '../audit/audit-actor';
import { RouteEntity } from './route.entity';
import { toCanonicalRoute, toRouteResponse, type RouteResponse } from './route.mapper';
import { RouteStore } from './route-store';

const MAX_ID_LENGTH = 64;

/** Toggle (spec 3.2), clone (decision 10), soft and permanent delete, restore (decision 11). */
@Injectable()
export class RouteLifecycle {
  constructor(private readonly store: RouteStore) {}

  async toggle(id: string, actor: AuditActor): Promise<RouteResponse> {
    return required(
      await this.store.commit(actor, async (tx) => {
        const row = this.store.writable(await this.store.live(tx, id));
        const route = { ...toCanonicalRoute(row), enabled: !row.enabled };
        await this.store.assertPathFree(tx, route);
        const saved = toRouteResponse(await this.store.save(tx, route, row));
        return { response: saved, action: 'route.toggle', routeId: id, change: { kind: 'upserted', route: saved }, details: { enabled: saved.enabled } };
      }),
    );
  }

  /**
   * A disabled copy `<id>-copy`, then `-copy-2`, ... (decision 10). Cloning a proxy.yml route is
   * allowed (the original is not changed); the copy is an API route.
   */
  async clone(id: string, actor: AuditActor): Promise<RouteResponse> {
    return required(
      await this.store.commit(actor, async (tx) => {
        const row = await this.store.live(tx, id);
        const copyId = await this.freeCopyId(tx, id);
        const { createdAt: _c, updatedAt: _u, ...original } = toCanonicalRoute(row);
        const route = { ...original, id: copyId, enabled: false, source: 'api' as const };
        const saved = toRouteResponse(await this.store.save(tx, route));
        return { response: saved, action: 'route.clone', routeId: copyId, change: { kind: 'upserted', route: saved }, details: { from: id } };
      }),
    );
  }

  /** Soft delete (hidden, restorable for 30 days) or, with `permanent`, removal at once. */
  async remove(id: string, permanent: boolean, actor: AuditActor): Promise<void> {
    await this.store.commit(actor, async (tx) => {
      // A hidden route can still be purged at once; hiding it twice is a 404.
      const row = this.store.writable(permanent ? await this.store.any(tx, id) : await this.store.live(tx, id));
      if (permanent) await tx.getRepository(RouteEntity).delete({ id });
      else {
        row.deletedAt = new Date();
        await tx.getRepository(RouteEntity).save(row);
      }
      return { response: undefined, action: permanent ? 'route.purge' : 'route.delete', routeId: id, change: { kind: 'deleted', routeId: id }, details: { path: row.path } };
    });
  }

  /** Brings a hidden route back as it was (decision 9 checked again when it is enabled). */
  async restore(id: string, actor: AuditActor): Promise<RouteResponse> {
    return required(
      await this.store.commit(actor, async (tx) => {
        const row = this.store.writable(await this.store.any(tx, id));
        if (row.deletedAt === null) throw new DomainError('BUSINESS_RULE', 'Route is not deleted', { id });
        await this.store.assertPathFree(tx, row);
        row.deletedAt = null;
        const saved = toRouteResponse(await tx.getRepository(RouteEntity).save(row));
        return { response: saved, action: 'route.restore', routeId: id, change: { kind: 'upserted', route: saved } };
      }),
    );
  }

  private async freeCopyId(tx: EntityManager, id: string): Promise<string> {
    for (let n = 1; ; n += 1) {
      const suffix = n === 1 ? '-copy' : `-copy-${n}`;
      const candidate = id.slice(0, MAX_ID_LENGTH - suffix.length) + suffix;
      if (!ROUTE_ID_PATTERN.test(candidate)) throw new Error(`clone id ${candidate} is not a valid route id`);
      if (!(await this.store.idTaken(tx, candidate))) return candidate;
    }
  }
}

function required(response: RouteResponse | undefined): RouteResponse {
  if (response === undefined) throw new Error('route change returned no route');
  return response;
}
