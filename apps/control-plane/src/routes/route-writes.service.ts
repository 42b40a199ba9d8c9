import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Route, UpstreamDefinition } from '@gateway/route-model';
import type { AuditActor } from '../audit/audit-actor';
import { ConfigRevisionService } from '../cluster/config-revision.service';
import { CONTROL_PLANE_CONFIG } from '../config/config.tokens';
import type { ControlPlaneConfig } from '../config/control-plane-config';
import { LiveSettings } from '../settings/live-settings.service';
import { UpstreamCatalog } from '../upstreams/upstream-catalog.service';
import { withCreationDefaults } from './route-creation-defaults';
import { assertServablePath, mergeRoutePatch, parseRouteBody, routeValidationError } from './route-input';
import type { RouteResponse } from './route.mapper';
import { toCanonicalRoute, toRouteResponse } from './route.mapper';
import { idTaken, RouteStore } from './route-store';

/** Create (POST), full replacement (PUT) and merge (PATCH) of API routes. */
@Injectable()
export class RouteWrites {
  private readonly reserved: readonly string[];

  constructor(
    private readonly store: RouteStore,
    @Inject(CONTROL_PLANE_CONFIG) config: Pick<ControlPlaneConfig, 'reservedPathPrefixes'>,
    @Inject(LiveSettings) private readonly settings: Pick<LiveSettings, 'general'>,
    private readonly upstreams: UpstreamCatalog,
    private readonly revisions: ConfigRevisionService,
  ) {
    this.reserved = config.reservedPathPrefixes;
  }

  async create(body: unknown, actor: AuditActor): Promise<RouteResponse> {
    // New routes take the timeout and retry defaults of settings (docs/settings.md).
    const catalog = await this.upstreams.list();
    const route = assertServablePath(parseRouteBody(withCreationDefaults(body, this.settings.general().routeDefaults), undefined, catalog), this.reserved);
    return this.required(
      await this.store.commit(actor, async (tx) => {
        await this.confirmNamedUpstream(tx, route);
        if (await this.store.idTaken(tx, route.id)) throw idTaken();
        await this.store.assertPathFree(tx, route);
        const saved = toRouteResponse(await this.store.save(tx, route));
        return { response: saved, action: 'route.create', routeId: route.id, change: { kind: 'upserted', route: saved }, details: { path: route.path, upstream: route.upstreamName ?? route.upstream, enabled: route.enabled } };
      }),
    );
  }

  /** PUT: the body is the whole route; optional fields it leaves out go back to their defaults. */
  async replace(id: string, body: unknown, actor: AuditActor): Promise<RouteResponse> {
    return this.update(id, actor, 'route.replace', (_stored, catalog) => parseRouteBody(body, id, catalog));
  }

  /** PATCH: the body is merged over the stored route (RFC 7396), then validated as a whole. */
  async patch(id: string, body: unknown, actor: AuditActor): Promise<RouteResponse> {
    return this.update(id, actor, 'route.patch', (stored, catalog) => mergeRoutePatch(stored, body, catalog));
  }

  private async update(id: string, actor: AuditActor, action: string, next: (stored: Route, upstreams: UpstreamDefinition[]) => Route): Promise<RouteResponse> {
    return this.required(
      await this.store.commit(actor, async (tx) => {
        const row = this.store.writable(await this.store.live(tx, id));
        const route = assertServablePath(next(toCanonicalRoute(row), await this.upstreams.list(tx)), this.reserved);
        await this.confirmNamedUpstream(tx, route);
        await this.store.assertPathFree(tx, route);
        const saved = toRouteResponse(await this.store.save(tx, route, row));
        return { response: saved, action, routeId: id, change: { kind: 'upserted', route: saved }, details: { path: route.path, upstream: route.upstreamName ?? route.upstream, enabled: route.enabled } };
      }),
    );
  }

  /**
   * The upstream a route names must exist when the route commits: under the revision lock (which
   * deleting an upstream takes too) it is looked up again, so the two cannot cross on PostgreSQL.
   */
  private async confirmNamedUpstream(tx: EntityManager, route: Route): Promise<void> {
    const name = route.upstreamName;
    if (name === undefined) return;
    await this.revisions.lock(tx);
    if (!(await this.upstreams.list(tx)).some((u) => u.name === name)) {
      throw routeValidationError([{ field: 'upstream', message: `Unknown upstream '${name}' (deleted meanwhile)`, code: 'UNKNOWN_UPSTREAM' }]);
    }
  }

  private required(response: RouteResponse | undefined): RouteResponse {
    if (response === undefined) throw new Error('route write returned no route');
    return response;
  }
}
