import { useState } from 'preact/hooks';
import { api, appBase } from '../api/api-client';
import type { WebhookDelivery } from '../api/api-types';
import { useQuery } from '../api/query-cache';
import { useAction } from '../api/use-action';
import { useLastDefined } from '../api/use-last-defined';
import { PaginationNav } from '../routes/pagination-nav';
import { deliveriesRevision } from './webhooks-revision';
import { ErrorAlert } from '../layout/error-alert';

const DELIVERIES_PER_PAGE = 20;

/**
 * A webhook's deliveries, newest first, each with its last attempt (status, latency, response
 * excerpt, error) and the whole attempt log on demand; redelivery of one. No polling: Refresh, or
 * any action on the page, asks again (`deliveriesRevision`).
 */
export function DeliveriesTable({ webhookId, page, onRefresh }: { webhookId: string; page: number; onRefresh: () => void }) {
  const result = useQuery(`webhook-deliveries:${webhookId}:${page}:${deliveriesRevision.value}`, () => api.listWebhookDeliveries(webhookId, DELIVERIES_PER_PAGE, (page - 1) * DELIVERIES_PER_PAGE));
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const data = useLastDefined(result.data);
  const total = data?.pagination.total ?? 0;
  return (
    <section aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">Deliveries</h2>
      <div class="actions">
        <button type="button" class="secondary" onClick={onRefresh} disabled={result.loading}>
          Refresh deliveries
        </button>
      </div>
      <p role="status" class="notice">
        {notice}
      </p>
      {result.error !== undefined && (
        <p class="error" role="alert">
          The deliveries could not be loaded: {result.error.message}
        </p>
      )}
      {data !== undefined && data.items.length === 0 && <p>No delivery yet.</p>}
      {data !== undefined && data.items.length > 0 && (
        <div class="table-scroll" tabIndex={0} role="region" aria-labelledby="deliveries-title">
          <table class="grid deliveries">
            <thead>
              <tr>
                <th scope="col">Created</th>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col" class="number">
                  Attempts
                </th>
                <th scope="col">Last answer</th>
                <th scope="col" class="number">
                  Latency
                </th>
                <th scope="col">Response excerpt / error</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {data.items.map((delivery) => (
                <DeliveryRow
                  key={delivery.id}
                  delivery={delivery}
                  onRedelivered={() => {
                    setNotice(`Redelivery of ${delivery.eventType} (${delivery.eventId}) queued: the same event id, signed with the current secret.`);
                    onRefresh();
                  }}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
      <PaginationNav
        page={page}
        pageCount={Math.max(1, Math.ceil(total / DELIVERIES_PER_PAGE))}
        hrefOf={(n) => `${appBase.pathname}webhooks/${encodeURIComponent(webhookId)}${n > 1 ? `?page=${n}` : ''}`}
      />
    </section>
  );
}

function DeliveryRow({ delivery, onRedelivered }: { delivery: WebhookDelivery; onRedelivered: () => void }) {
  const [state, run] = useAction();
  const last = delivery.attemptLog.at(-1);
  async function redeliver(): Promise<void> {
    const queued = await run(() => api.redeliverWebhook(delivery.webhookId, delivery.id));
    if (queued !== undefined) onRedelivered();
  }
  return (
    <tr data-delivery={delivery.id} data-event-type={delivery.eventType}>
      <td>
        <time dateTime={delivery.createdAt}>{new Date(delivery.createdAt).toLocaleString()}</time>
        {!delivery.countsForHealth && <div class="notice">test or redelivery</div>}
      </td>
      <td>
        <code>{delivery.eventType}</code>
        <div class="notice">{delivery.eventId}</div>
      </td>
      <td>
        <span class={`badge badge-delivery-${delivery.status}`}>{delivery.status}</span>
        {delivery.nextAttemptAt !== null && (
          <div class="notice">
            next <time dateTime={delivery.nextAttemptAt}>{new Date(delivery.nextAttemptAt).toLocaleTimeString()}</time>
          </div>
        )}
      </td>
      <td class="number" data-testid="delivery-attempts">
        {delivery.attempts} / {delivery.maxAttempts}
      </td>
      <td>{last === undefined ? '—' : last.statusCode === null ? 'no answer' : `HTTP ${last.statusCode}`}</td>
      <td class="number">{last === undefined ? '—' : `${last.latencyMs} ms`}</td>
      <td class="excerpt">
        {last?.error !== null && last?.error !== undefined && <div class="error">{last.error}</div>}
        {last?.responseExcerpt !== null && last?.responseExcerpt !== undefined && <code>{last.responseExcerpt}</code>}
        {delivery.attemptLog.length > 1 && (
          <details>
            <summary>All {delivery.attemptLog.length} attempts</summary>
            <ol>
              {delivery.attemptLog.map((a) => (
                <li key={a.attempt}>
                  <time dateTime={a.at}>{new Date(a.at).toLocaleString()}</time>: {a.statusCode === null ? 'no answer' : `HTTP ${a.statusCode}`}, {a.latencyMs} ms
                  {a.error === null ? '' : `, ${a.error}`}
                </li>
              ))}
            </ol>
          </details>
        )}
      </td>
      <td>
        <button type="button" class="secondary" disabled={state.busy} onClick={() => void redeliver()} aria-label={`Redeliver ${delivery.eventType} ${delivery.eventId}`}>
          Redeliver
        </button>
        <ErrorAlert message={state.error} />
      </td>
    </tr>
  );
}
