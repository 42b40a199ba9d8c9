import { useLocation } from 'preact-iso';
import { api, appBase } from '../api/api-client';
import { ErrorAlert } from '../layout/error-alert';
import { PaginationNav } from '../layout/pagination-nav';
import { useFocusHeading } from '../layout/use-focus-heading';
import { usePagedList } from '../layout/use-paged-list';
import { routeStates, useLiveTelemetry } from '../monitoring/live-telemetry';
import { BreakerBadge, HealthBadge } from '../monitoring/state-badge';
import { readRouteListFilters, routeListSearch, toRouteListQuery, ROUTES_PER_PAGE } from './route-list-params';
import { TableHead } from '../layout/data-table';

/** Spec 4.3: ten a page, previous/next/direct page, search over path and description, enabled filter. */
export function RoutesListPage() {
  const location = useLocation();
  const filters = readRouteListFilters(location.query);
  const list = usePagedList({ prefix: 'routes:', variant: JSON.stringify(filters), perPage: ROUTES_PER_PAGE, load: (range) => api.listRoutes(toRouteListQuery(filters, range)) });
  const result = list.query;
  const heading = useFocusHeading();
  // Health and breaker: one summary request for the app, then the shared stream (no polling).
  useLiveTelemetry();
  const states = routeStates.value;
  const listPath = `${appBase.pathname}routes`;

  function applyFilters(event: Event): void {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const enabled = String(form.get('enabled') ?? 'all');
    const next = routeListSearch({
      search: String(form.get('search') ?? '').trim(),
      enabled: enabled === 'true' || enabled === 'false' ? enabled : 'all',
      tag: String(form.get('tag') ?? '').trim(),
    });
    location.route(`${listPath}${next}`);
  }

  const { total, page } = list;
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
          <input id="route-search" name="search" type="search" defaultValue={filters.search} maxLength={200} />
        </span>
        <span class="field">
          <label for="route-enabled">Enabled</label>
          <select id="route-enabled" name="enabled" defaultValue={filters.enabled}>
            <option value="all">All routes</option>
            <option value="true">Enabled only</option>
            <option value="false">Disabled only</option>
          </select>
        </span>
        <span class="field">
          <label for="route-tag">Tag</label>
          <input id="route-tag" name="tag" type="text" defaultValue={filters.tag} maxLength={64} size={12} />
        </span>
        <button type="submit">Apply</button>
      </form>
      <ErrorAlert message={result.error === undefined ? undefined : `The routes could not be loaded: ${result.error.message}`} />
      <p class="summary" role="status">
        {result.loading ? 'Loading routes…' : `${total} route${total === 1 ? '' : 's'}, page ${page} of ${list.pages.pageCount}`}
      </p>
      {result.data !== undefined && result.data.routes.length > 0 && (
        <table class="routes">
          <caption class="visually-hidden">Routes, page {page}</caption>
          <TableHead columns={['Path', 'Upstream', 'Methods', 'Enabled', 'Health', 'Breaker', 'Source']} />
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
      <PaginationNav {...list.pages} />
    </main>
  );
}
