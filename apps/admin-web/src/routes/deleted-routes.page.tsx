import { useState } from 'preact/hooks';
import { api } from '../api/api-client';
import { describeError } from '../api/api-error';
import { invalidateQueries } from '../api/query-cache';
import type { Route } from '../api/api-types';
import { ErrorAlert } from '../layout/error-alert';
import { PaginationNav } from '../layout/pagination-nav';
import { useFocusHeading } from '../layout/use-focus-heading';
import { usePagedList } from '../layout/use-paged-list';
import { BackToRoutes } from './back-to-routes';
import { TableHead } from '../layout/data-table';

/** Spec 3.2: a soft-deleted route can be restored for 30 days, then it is purged. */
const KEPT_DAYS = 30;
const DAY_MS = 86_400_000;
/** The API's largest page (decision 5): the trash is short-lived, one page mostly shows it. */
const DELETED_PER_PAGE = 100;

export function daysLeft(deletedAt: string, now = Date.now()): number {
  return Math.max(0, Math.ceil((Date.parse(deletedAt) + KEPT_DAYS * DAY_MS - now) / DAY_MS));
}

/** The trash: each deleted route with the days left to restore it, restore, and delete for good. */
export default function DeletedRoutesPage() {
  const list = usePagedList({ prefix: 'deleted-routes:', perPage: DELETED_PER_PAGE, load: (range) => api.listRoutes({ ...range, deleted: true }) });
  const deleted = list.query;
  const heading = useFocusHeading();
  const [message, setMessage] = useState<string | undefined>(undefined);
  const [confirming, setConfirming] = useState<string | undefined>(undefined);

  async function run(route: Route, action: 'restore' | 'purge'): Promise<void> {
    setMessage(undefined);
    try {
      if (action === 'restore') await api.routeAction(route.id, 'restore');
      else await api.deleteRoute(route.id, true);
      invalidateQueries('routes:', `route:${route.id}`);
      setConfirming(undefined);
      setMessage(action === 'restore' ? `${route.path} was restored.` : `${route.path} was deleted for good.`);
      list.changed();
    } catch (error) {
      setMessage(describeError(error));
    }
  }

  const routes = deleted.data?.routes ?? [];
  return (
    <main>
      <BackToRoutes />
      <h1 ref={heading} tabIndex={-1}>
        Deleted routes
      </h1>
      <p class="summary" role="status">
        {message ?? (deleted.loading ? 'Loading…' : `${list.total} deleted route(s); each can be restored for ${KEPT_DAYS} days.`)}
      </p>
      <ErrorAlert message={deleted.error?.message} />
      {routes.length > 0 && (
        <table class="routes">
          <caption class="visually-hidden">Deleted routes</caption>
          <TableHead columns={['Path', 'Upstream', 'Days left', 'Actions']} />
          <tbody>
            {routes.map((route) => (
              <tr key={route.id}>
                <td>{route.path}</td>
                <td class="upstream">{route.upstream}</td>
                <td>{route.deletedAt === undefined ? '—' : daysLeft(route.deletedAt)}</td>
                <td>
                  <button type="button" class="secondary" aria-label={`Restore ${route.path}`} onClick={() => void run(route, 'restore')}>
                    Restore
                  </button>{' '}
                  {confirming === route.id ? (
                    <>
                      <button type="button" class="danger" aria-label={`Delete for good: ${route.path}`} onClick={() => void run(route, 'purge')}>
                        Delete for good
                      </button>{' '}
                      <button type="button" class="secondary" onClick={() => setConfirming(undefined)}>
                        Cancel
                      </button>
                    </>
                  ) : (
                    <button type="button" class="danger" aria-label={`Delete permanently: ${route.path}`} onClick={() => setConfirming(route.id)}>
                      Delete permanently
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <PaginationNav {...list.pages} />
    </main>
  );
}
