import { useRoute } from 'preact-iso';
import { useState } from 'preact/hooks';
import { api, appBase } from '../api/api-client';
import type { WebhookDelivery, WebhookWithSecret } from '../api/api-types';
import { useQuery } from '../api/query-cache';
import { useAction } from '../api/use-action';
import { useLastDefined } from '../api/use-last-defined';
import { useFocusHeading } from '../layout/use-focus-heading';
import { DeliveriesTable } from './deliveries-table';
import { RotateSecretForm } from './rotate-secret-form';
import { SecretOnce } from '../layout/secret-once';
import { WebhookForm } from './webhook-form';
import { deliveriesChanged, webhooksChanged, webhooksRevision } from './webhooks-revision';
import { severityText, WebhookStatus } from './webhook-status';

/** /admin/webhooks/:id: edit, send a test ping, rotate the secret (shown once), deliveries and redelivery. */
export default function WebhookDetailPage() {
  const { params } = useRoute();
  const id = params['id'] ?? '';
  // The webhook is asked again after a change of it; the deliveries after any action or Refresh.
  const result = useQuery(`webhook:${id}:${webhooksRevision.value}`, () => api.getWebhook(id));
  const heading = useFocusHeading();
  const [editing, setEditing] = useState(false);
  const [rotated, setRotated] = useState<WebhookWithSecret | undefined>(undefined);
  const [ping, setPing] = useState<WebhookDelivery | undefined>(undefined);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const [editState, runEdit, clearEdit] = useAction();
  const [pingState, runPing] = useAction();
  const last = useLastDefined(result.data);
  const hook = last?.id === id ? last : undefined;
  const refreshDeliveries = deliveriesChanged;
  const refresh = (): void => {
    webhooksChanged();
    refreshDeliveries();
  };

  async function sendPing(): Promise<void> {
    const delivery = await runPing(() => api.testWebhook(id));
    if (delivery === undefined) return;
    setPing(delivery);
    refreshDeliveries();
  }

  return (
    <main>
      <p>
        <a href={`${appBase.pathname}webhooks`}>All webhooks</a>
      </p>
      <h1 ref={heading} tabIndex={-1}>
        Webhook
      </h1>
      {result.error !== undefined && (
        <p class="error" role="alert">
          The webhook could not be loaded: {result.error.message}
        </p>
      )}
      {result.loading && hook === undefined && <p>Loading the webhook…</p>}
      {hook !== undefined && (
        <>
          <dl class="fields">
            <dt>URL</dt>
            <dd data-testid="webhook-url">{hook.url}</dd>
            <dt>Events</dt>
            <dd>{hook.events.join(', ')}</dd>
            <dt>Severities</dt>
            <dd>{severityText(hook)}</dd>
            <dt>Status</dt>
            <dd>
              <WebhookStatus webhook={hook} />
            </dd>
            <dt>Description</dt>
            <dd>{hook.description ?? '—'}</dd>
            <dt>Previous secret</dt>
            <dd>
              {hook.previousSecretExpiresAt === null ? (
                'none: one secret signs'
              ) : (
                <>
                  signs beside the new one until <time dateTime={hook.previousSecretExpiresAt}>{new Date(hook.previousSecretExpiresAt).toLocaleString()}</time>
                </>
              )}
            </dd>
          </dl>
          <p role="status" class="notice">
            {notice}
          </p>
          {editing ? (
            <WebhookForm
              idPrefix="edit-webhook"
              title="Edit the webhook"
              submitLabel="Save changes"
              initial={hook}
              state={editState}
              onCancel={() => {
                clearEdit();
                setEditing(false);
              }}
              onSubmit={(input) =>
                void runEdit(() => api.updateWebhook(id, input)).then((saved) => {
                  if (saved === undefined) return;
                  setEditing(false);
                  setNotice('Saved.');
                  clearEdit();
                  refresh();
                })
              }
            />
          ) : (
            <div class="actions">
              <button type="button" class="secondary" onClick={() => setEditing(true)}>
                Edit
              </button>
              <button type="button" disabled={pingState.busy} onClick={() => void sendPing()}>
                {pingState.busy ? 'Sending…' : 'Send test ping'}
              </button>
            </div>
          )}
          {pingState.error !== undefined && (
            <p class="error" role="alert">
              {pingState.error}
            </p>
          )}
          {ping !== undefined && <PingResult delivery={ping} />}
          {rotated === undefined ? (
            <RotateSecretForm
              webhookId={id}
              onRotated={(next) => {
                setRotated(next);
                refresh();
              }}
            />
          ) : (
            <SecretOnce
              noun="secret"
              testId="webhook-secret"
              title="New signing secret"
              secret={rotated.secret}
              note={
                rotated.previousSecretExpiresAt === null
                  ? 'Store it now: it is not shown again. The previous secret no longer signs.'
                  : `Store it now: it is not shown again. The previous secret signs beside it until ${new Date(rotated.previousSecretExpiresAt).toLocaleString()}.`
              }
              onDone={() => setRotated(undefined)}
            />
          )}
          <DeliveriesTable webhookId={id} onRefresh={refreshDeliveries} />
        </>
      )}
    </main>
  );
}

function PingResult({ delivery }: { delivery: WebhookDelivery }) {
  const attempt = delivery.attemptLog.at(-1);
  return (
    <p role="status" data-testid="ping-result" class={delivery.status === 'delivered' ? 'notice' : 'error'}>
      Test ping {delivery.status === 'delivered' ? 'delivered' : 'not delivered'}
      {attempt === undefined
        ? ' (no attempt recorded yet)'
        : `: ${attempt.statusCode === null ? 'no answer' : `HTTP ${attempt.statusCode}`} in ${attempt.latencyMs} ms${attempt.error === null ? '' : `, ${attempt.error}`}`}
      .
    </p>
  );
}
