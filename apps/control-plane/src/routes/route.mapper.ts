import type { Route } from '@gateway/route-model';
import type { RouteEntity } from './route.entity';

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
