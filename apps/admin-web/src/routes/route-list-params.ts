import type { RouteListQuery } from '../api/api-types';

/** Spec 4.3: ten routes a page. */
export const ROUTES_PER_PAGE = 10;

/** The list's state as it sits in the address bar, so a reload or a shared link shows the same page. */
export interface RouteListParams {
  page: number;
  search: string;
  enabled: 'all' | 'true' | 'false';
  tag: string;
}

export function readRouteListParams(query: Record<string, string>): RouteListParams {
  const page = Number.parseInt(query['page'] ?? '1', 10);
  const enabled = query['enabled'];
  return {
    page: Number.isSafeInteger(page) && page >= 1 ? page : 1,
    search: query['search'] ?? '',
    enabled: enabled === 'true' || enabled === 'false' ? enabled : 'all',
    tag: query['tag'] ?? '',
  };
}

export function routeListSearch(params: RouteListParams): string {
  const search = new URLSearchParams();
  if (params.page > 1) search.set('page', String(params.page));
  if (params.search !== '') search.set('search', params.search);
  if (params.enabled !== 'all') search.set('enabled', params.enabled);
  if (params.tag !== '') search.set('tag', params.tag);
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

export function toRouteListQuery(params: RouteListParams): RouteListQuery {
  return {
    limit: ROUTES_PER_PAGE,
    offset: (params.page - 1) * ROUTES_PER_PAGE,
    ...(params.search === '' ? {} : { search: params.search }),
    ...(params.enabled === 'all' ? {} : { enabled: params.enabled === 'true' }),
    ...(params.tag === '' ? {} : { tag: params.tag }),
  };
}

/** The page numbers to offer: the first, the last and two either side of the current one. */
export function pageNumbers(current: number, pageCount: number): number[] {
  const pages = new Set<number>([1, pageCount]);
  for (let page = current - 2; page <= current + 2; page += 1) if (page >= 1 && page <= pageCount) pages.add(page);
  return [...pages].filter((page) => page >= 1).sort((a, b) => a - b);
}
