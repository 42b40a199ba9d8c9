import { useRoute } from 'preact-iso';
import { api, appBase } from '../api/api-client';
import { useQuery } from '../api/query-cache';
import { useFocusHeading } from '../layout/use-focus-heading';

/** One route, read-only for now: its main fields and the canonical definition the API answers. */
export default function RouteDetailPage() {
  const { params } = useRoute();
  const id = params['id'] ?? '';
  const result = useQuery(`route:${id}`, () => api.getRoute(id));
  const heading = useFocusHeading();
  const route = result.data;
  return (
    <main>
      <p>
        <a href={`${appBase.pathname}routes`}>Back to routes</a>
      </p>
      <h1 ref={heading} tabIndex={-1}>
        {route === undefined ? 'Route' : `Route ${route.path}`}
      </h1>
      {result.loading && <p role="status">Loading the route…</p>}
      {result.error !== undefined && (
        <p class="error" role="alert">
          {result.error.status === 404 ? `No route has the id ${id}.` : `The route could not be loaded: ${result.error.message}`}
        </p>
      )}
      {route !== undefined && (
        <>
          <dl class="fields">
            <dt>Id</dt>
            <dd>{route.id}</dd>
            <dt>Upstream</dt>
            <dd>{route.upstream}</dd>
            <dt>Methods</dt>
            <dd>{route.methods === undefined ? 'All' : route.methods.join(', ')}</dd>
            <dt>Enabled</dt>
            <dd>{route.enabled ? 'Yes' : 'No'}</dd>
            <dt>Source</dt>
            <dd>{route.source === 'file' ? 'proxy.yml: change it in the file' : 'API'}</dd>
            <dt>Description</dt>
            <dd>{route.description === '' ? '—' : route.description}</dd>
          </dl>
          <h2>Definition</h2>
          <pre class="definition" tabIndex={0} aria-label="Route definition as JSON">
            {JSON.stringify(route, null, 2)}
          </pre>
        </>
      )}
    </main>
  );
}
