import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { api, appBase } from '../../api/api-client';
import { describeError } from '../../api/api-error';
import { ErrorAlert } from '../../layout/error-alert';
import { invalidateQueries } from '../../api/query-cache';
import type { Route } from '../../api/api-types';

/**
 * Edit, toggle, clone and soft delete (with a confirmation step). proxy.yml routes change only
 * through the file: their buttons are replaced by the reason.
 */
export function RouteActions({ route, onChanged }: { route: Route; onChanged: () => void }) {
  const location = useLocation();
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [message, setMessage] = useState<string | undefined>(undefined);
  const routes = `${appBase.pathname}routes`;
  if (route.source === 'file') {
    return (
      <p class="notice" role="note">
        Read-only: this route is declared in proxy.yml. Change it in the file and reload the configuration (SIGHUP or <code>gateway config:reload</code>).
      </p>
    );
  }

  async function run(action: () => Promise<void>): Promise<void> {
    setBusy(true);
    setMessage(undefined);
    try {
      await action();
    } catch (error) {
      setMessage(describeError(error));
    } finally {
      setBusy(false);
    }
  }
  const toggle = () =>
    run(async () => {
      await api.routeAction(route.id, 'toggle');
      invalidateQueries('routes:');
      onChanged();
    });
  const clone = () =>
    run(async () => {
      const copy = await api.routeAction(route.id, 'clone');
      invalidateQueries('routes:');
      location.route(`${routes}/${encodeURIComponent(copy.id)}`);
    });
  const remove = () =>
    run(async () => {
      await api.deleteRoute(route.id);
      invalidateQueries('routes:', `route:${route.id}`, 'deleted-routes:');
      location.route(`${appBase.pathname}deleted-routes`);
    });

  return (
    <div class="route-actions">
      <a class="button" href={`${routes}/${encodeURIComponent(route.id)}/edit`}>
        Edit
      </a>
      <button type="button" class="secondary" disabled={busy} onClick={() => void toggle()}>
        {route.enabled ? 'Disable' : 'Enable'}
      </button>
      <button type="button" class="secondary" disabled={busy} onClick={() => void clone()}>
        Clone
      </button>
      {!confirming && (
        <button type="button" class="danger" disabled={busy} onClick={() => setConfirming(true)}>
          Delete
        </button>
      )}
      {confirming && (
        <div class="confirm" role="group" aria-label="Confirm deletion">
          <p>Delete {route.path}? It stops serving at once and can be restored from Deleted routes for 30 days.</p>
          <button type="button" class="danger" disabled={busy} onClick={() => void remove()}>
            Delete route
          </button>
          <button type="button" class="secondary" onClick={() => setConfirming(false)}>
            Keep it
          </button>
        </div>
      )}
      <ErrorAlert message={message} />
    </div>
  );
}
