import { useRoute } from 'preact-iso';
import { canonicalRouteInput } from '@gateway/route-model';
import { api } from '../../api/api-client';
import { useQuery } from '../../api/query-cache';
import type { Route } from '../../api/api-types';
import { useFocusHeading } from '../../layout/use-focus-heading';
import { RouteForm } from './route-form';
import type { Draft } from './draft';

/** The fields the server sets: loaded with the route, never part of what the form sends. */
const SERVER_SET = ['source', 'createdAt', 'updatedAt', 'deletedAt', 'upstreamName'];

/** A new route starts with the path and upstream to fill; every other field has the schema's default. */
const NEW_ROUTE: Draft = { path: '', upstream: '' };

/** Create (`/admin/new-route`) and edit (`/admin/routes/:id/edit`) with one form. */
export default function RouteEditorPage() {
  const { params } = useRoute();
  const id = params['id'];
  const heading = useFocusHeading();
  const existing = useQuery(id === undefined ? 'editor:new-route' : `route:${id}`, () => (id === undefined ? Promise.resolve(undefined) : api.getRoute(id)));
  const route = existing.data;
  return (
    <main>
      <h1 ref={heading} tabIndex={-1}>
        {id === undefined ? 'New route' : `Edit route ${route?.path ?? id}`}
      </h1>
      {existing.loading && <p role="status">Loading the route…</p>}
      {existing.error !== undefined && (
        <p class="error" role="alert">
          The route could not be loaded: {existing.error.message}
        </p>
      )}
      {route?.source === 'file' && (
        <p class="notice" role="note">
          This route comes from proxy.yml: it changes only through the file (and a reload), so it is shown read-only.
        </p>
      )}
      {(id === undefined || route !== undefined) && <RouteForm key={id ?? 'new'} initial={route === undefined ? NEW_ROUTE : editable(route)} routeId={id} readOnly={route?.source === 'file'} />}
    </main>
  );
}

/**
 * The route in its input spelling (a stored breaker threshold of 1 % or less is shown as the
 * fraction decision 7 reads back), without the server-set fields: saved untouched, it is the same.
 */
function editable(route: Route): Draft {
  const draft: Draft = { ...canonicalRouteInput(route) };
  for (const key of SERVER_SET) delete draft[key];
  // A route naming an upstream keeps naming it (its `upstream` shows the first target's URL).
  if (route.upstreamName !== undefined) draft['upstream'] = route.upstreamName;
  return draft;
}
