import { useLocation } from 'preact-iso';
import { api, appBase } from '../api/api-client';
import { useQuery } from '../api/query-cache';
import { useFocusHeading } from '../layout/use-focus-heading';
import { routeStates, useLiveTelemetry } from '../monitoring/live-telemetry';
import { BreakerBadge, HealthBadge } from '../monitoring/state-badge';
import { PaginationNav } from './pagination-nav';
import { readRouteListParams, routeListSearch, toRouteListQuery, ROUTES_PER_PAGE, type RouteListParams } from './route-list-params';

/** Spec 4.3: ten a page, previous/next/direct page, search over path and description, enabled filter. */
export function RoutesListPage() {
  const location = useLocation();
  const params = readRouteListParams(location.query);
  const query = toRouteListQuery(params);
  const result = useQuery(`routes:${JSON.stringify(query)}`, () => api.listRoutes(query));
  const heading = useFocusHeading();
  // Health and breaker: one summary request for the app, then the shared stream (no polling).
  useLiveTelemetry();
  const states = routeStates.value;
  const listPath = `${appBase.pathname}routes`;
  const hrefOf = (next: Partial<RouteListParams>) => `${listPath}${routeListSearch({ ...params, ...next })}`;

  function applyFilters(event: Event): void {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const enabled = String(form.get('enabled') ?? 'all');
    location.route(
      hrefOf({
        page: 1,
        search: String(form.get('search') ?? '').trim(),
        enabled: enabled === 'true' || enabled === 'false' ? enabled : 'all',
        tag: String(form.get('tag') ?? '').trim(),
      }),
    );
  }

  const total = result.data?.pagination.total ?? 0;
  const pageCount = Math.max(1, Math.ceil(total / ROUTES_PER_PAGE));
  return (
    <main>
      <h1 ref={heading} tabIndex={-1}>
        Routes
      </h1>
      <p class="page-actions"><a class="button" href={`${appBase.pathname}new-route`}>New route</a> <a href={`${appBase.pathname}deleted-routes`}>Deleted routes</a></p>
      <form class="filters" role="search" onSubmit={applyFilters} key={location.url}>
        {/* Each label stays with its control when the row wraps on a narrow screen. */}
        <span class="field">
          <label for="route-search">Search path or description</label>
          <input id="route-search" name="search" type="search" defaultValue={params.search} maxLength={200} />
        </span>
        <span class="field">
          <label for="route-enabled">Enabled</label>
          <select id="route-enabled" name="enabled" defaultValue={params.enabled}>
            <option value="all">All routes</option>
            <option value="true">Enabled only</option>
            <option value="false">Disabled only</option>
          </select>
        </span>
        <span class="field">
          <label for="route-tag">Tag</label>
          <input id="route-tag" name="tag" type="text" defaultValue={params.tag} maxLength={64} size={12} />
        </span>
        <button type="submit">Apply</button>
      </form>
      {result.error !== undefined && (
        <p class="error" role="alert">
          The routes could not be loaded: {result.error.message}
        </p>
      )}
      <p class="summary" role="status">
        {result.loading ? 'Loading routes…' : `${total} route${total === 1 ? '' : 's'}, page ${params.page} of ${pageCount}`}
      </p>
      {result.data !== undefined && result.data.routes.length > 0 && (
        <table class="routes">
          <caption class="visually-hidden">Routes, page {params.page}</caption>
          <thead>
            <tr>
              <th scope="col">Path</th>
              <th scope="col">Upstream</th>
              <th scope="col">Methods</th>
              <th scope="col">Enabled</th>
              <th scope="col">Health</th>
              <th scope="col">Breaker</th>
              <th scope="col">Source</th>
            </tr>
          </thead>
          <tbody>
            {result.data.routes.map((route) => (
              <tr key={route.id}>
                <td>
                  <a href={`${listPath}/${encodeURIComponent(route.id)}`}>{route.path}</a>
                  {route.description !== '' && <div class="description">{route.description}</div>}
                </td>
                <td class="upstream">{route.upstream}</td>
                <td>{route.methods === undefined ? 'All' : route.methods.join(', ')}</td>
                <td>{route.enabled ? 'Yes' : 'No'}</td>
                <td>
                  <HealthBadge health={states.get(route.id)?.health} />
                </td>
                <td>
                  <BreakerBadge breaker={states.get(route.id)?.breaker} />
                </td>
                <td>
                  {route.source === 'file' ? (
                    <>
                      proxy.yml (read-only)
                      <div class="description">Defined in the file: change it there</div>
                    </>
                  ) : (
                    'API'
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {result.data !== undefined && result.data.routes.length === 0 && <p>No route matches.</p>}
      <PaginationNav page={params.page} pageCount={pageCount} hrefOf={(page) => hrefOf({ page })} />
    </main>
  );
}
