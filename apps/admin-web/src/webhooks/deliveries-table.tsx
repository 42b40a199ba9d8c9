import { useState } from 'preact/hooks';
import { api } from '../api/api-client';
import type { WebhookDelivery } from '../api/api-types';
import { useAction } from '../api/use-action';
import { useLastDefined } from '../api/use-last-defined';
import { ErrorAlert } from '../layout/error-alert';
import { PaginationNav } from '../layout/pagination-nav';
import { usePagedList } from '../layout/use-paged-list';
import { deliveriesRevision } from './webhooks-revision';
import { DataTable } from '../layout/data-table';

const DELIVERIES_PER_PAGE = 20;

/**
 * A webhook's deliveries, newest first, each with its last attempt (status, latency, response
 * excerpt, error) and the whole attempt log on demand; redelivery of one. No polling: Refresh, or
 * any action on the page, asks again (`deliveriesRevision`).
 */
export function DeliveriesTable({ webhookId, onRefresh }: { webhookId: string; onRefresh: () => void }) {
  const list = usePagedList({
    prefix: 'webhook-deliveries:',
    variant: `${webhookId}:${deliveriesRevision.value}`,
    perPage: DELIVERIES_PER_PAGE,
    load: ({ limit, offset }) => api.listWebhookDeliveries(webhookId, limit, offset),
  });
  const result = list.query;
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const data = useLastDefined(result.data);
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
      <ErrorAlert message={result.error === undefined ? undefined : `The deliveries could not be loaded: ${result.error.message}`} />
      {data !== undefined && data.items.length === 0 && <p>No delivery yet.</p>}
      {data !== undefined && data.items.length > 0 && (
        <DataTable labelledBy="deliveries-title" tableClass="deliveries" columns={['Created', 'Event', 'Status', { label: 'Attempts', numeric: true }, 'Last answer', { label: 'Latency', numeric: true }, 'Response excerpt / error', 'Actions']}>
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
        </DataTable>
      )}
      <PaginationNav {...list.pages} />
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
