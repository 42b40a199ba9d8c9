import { useRoute } from 'preact-iso';
import { useState } from 'preact/hooks';
import { api } from '../api/api-client';
import { describeError } from '../api/api-error';
import { useQuery } from '../api/query-cache';
import type { Route } from '../api/api-types';
import { useFocusHeading } from '../layout/use-focus-heading';
import { proxyYmlEntry } from './detail/proxy-yml';
import { RouteActions } from './detail/route-actions';
import { BreakerPanel, HealthPanel, RateLimitPanel } from './detail/route-status-panels';
import { RouteTestConsole } from './detail/route-test-console';
import { useLiveRouteState } from './detail/use-live-route-state';
import { BackToRoutes } from './back-to-routes';

/** One route: its fields, actions, live state, a test console, cache purge and its proxy.yml form. */
export default function RouteDetailPage() {
  const { params } = useRoute();
  const id = params['id'] ?? '';
  const result = useQuery(`route:${id}`, () => api.getRoute(id));
  const heading = useFocusHeading();
  const route = result.data;
  const live = useLiveRouteState(id);
  return (
    <main>
      <BackToRoutes />
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
          <RouteActions route={route} onChanged={result.reload} />
          <dl class="fields">
            <dt>Id</dt>
            <dd>{route.id}</dd>
            <dt>Upstream</dt>
            <dd>{route.upstream}</dd>
            <dt>Methods</dt>
            <dd>{route.methods === undefined ? 'All' : route.methods.join(', ')}</dd>
            <dt>Enabled</dt>
            <dd data-testid="route-enabled">{route.enabled ? 'Yes' : 'No'}</dd>
            <dt>Source</dt>
            <dd>{route.source === 'file' ? 'proxy.yml: change it in the file' : 'API'}</dd>
            <dt>Description</dt>
            <dd>{route.description === '' ? '—' : route.description}</dd>
          </dl>
          <div class="panels">
            <HealthPanel route={route} live={live.health} />
            <BreakerPanel route={route} live={live.breaker} />
            <RateLimitPanel route={route} />
          </div>
          <RouteTestConsole route={route} />
          {route.cache !== undefined && <CachePurge route={route} />}
          <ProxyYml route={route} />
        </>
      )}
    </main>
  );
}

function CachePurge({ route }: { route: Route }) {
  const [message, setMessage] = useState<string | undefined>(undefined);
  async function purge(): Promise<void> {
    try {
      await api.purgeCache(route.id);
      setMessage('The route\'s cached responses were purged on every data plane that answered.');
    } catch (error) {
      setMessage(`Not purged: ${describeError(error)}`);
    }
  }
  return (
    <section aria-labelledby="cache-heading">
      <h2 id="cache-heading">Cache</h2>
      <button type="button" class="secondary" onClick={() => void purge()}>
        Purge cache
      </button>
      {message !== undefined && <p role="status">{message}</p>}
    </section>
  );
}

function ProxyYml({ route }: { route: Route }) {
  const text = proxyYmlEntry(route);
  const [copied, setCopied] = useState(false);
  return (
    <section aria-labelledby="yml-heading">
      <h2 id="yml-heading">proxy.yml form</h2>
      <pre class="definition" tabIndex={0} aria-label="The route as a proxy.yml entry" data-testid="proxy-yml">
        {text}
      </pre>
      <button
        type="button"
        class="secondary"
        onClick={() =>
          void navigator.clipboard.writeText(text).then(
            () => setCopied(true),
            () => setCopied(false),
          )
        }
      >
        Copy
      </button>
      {copied && <span role="status"> Copied.</span>}
    </section>
  );
}
