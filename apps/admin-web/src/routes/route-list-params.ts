import type { RouteListQuery } from '../api/api-types';

/** Spec 4.3: ten routes a page. */
export const ROUTES_PER_PAGE = 10;

/** The list's filters as they sit in the address bar (the page beside them), so a reload or a shared link shows the same list. */
export interface RouteListFilters {
  search: string;
  enabled: 'all' | 'true' | 'false';
  tag: string;
}

export function readRouteListFilters(query: Record<string, string>): RouteListFilters {
  const enabled = query['enabled'];
  return {
    search: query['search'] ?? '',
    enabled: enabled === 'true' || enabled === 'false' ? enabled : 'all',
    tag: query['tag'] ?? '',
  };
}

/** The address's query for the first page with these filters. */
export function routeListSearch(filters: RouteListFilters): string {
  const search = new URLSearchParams();
  if (filters.search !== '') search.set('search', filters.search);
  if (filters.enabled !== 'all') search.set('enabled', filters.enabled);
  if (filters.tag !== '') search.set('tag', filters.tag);
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

export function toRouteListQuery(filters: RouteListFilters, range: { limit: number; offset: number }): RouteListQuery {
  return {
    ...range,
    ...(filters.search === '' ? {} : { search: filters.search }),
    ...(filters.enabled === 'all' ? {} : { enabled: filters.enabled === 'true' }),
    ...(filters.tag === '' ? {} : { tag: filters.tag }),
  };
}
