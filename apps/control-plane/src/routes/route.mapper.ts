import type { Route } from '@gateway/route-model';
import type { RouteEntity } from './route.entity';

/** What the API answers for one route: the canonical route, plus `deletedAt` for a hidden one. */
export type RouteResponse = Route & { deletedAt?: string };

/** The columns of a canonical route (timestamps stay with the row, not in `definition`). */
export function toRouteRow(route: Route): Omit<RouteEntity, 'createdAt' | 'updatedAt' | 'deletedAt'> {
  const { createdAt: _createdAt, updatedAt: _updatedAt, ...definition } = route;
  return {
    id: route.id,
    path: route.path,
    upstream: route.upstream,
    enabled: route.enabled,
    source: route.source ?? 'api',
    priority: route.priority,
    description: route.description,
    tags: route.tags,
    definition: definition as Route,
  };
}

/** The canonical route of a row: `definition` plus the row's source and ISO timestamps (decision 4). */
export function toCanonicalRoute(entity: RouteEntity): Route {
  return {
    ...entity.definition,
    id: entity.id,
    enabled: entity.enabled,
    source: entity.source,
    createdAt: entity.createdAt.toISOString(),
    updatedAt: entity.updatedAt.toISOString(),
  };
}

/** The API's view of a row (decision 11: a hidden route shows when it was deleted). */
export function toRouteResponse(entity: RouteEntity): RouteResponse {
  const route: RouteResponse = toCanonicalRoute(entity);
  if (entity.deletedAt !== null && entity.deletedAt !== undefined) route.deletedAt = entity.deletedAt.toISOString();
  return route;
}
