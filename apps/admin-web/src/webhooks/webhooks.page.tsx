import { useLocation } from 'preact-iso';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, appBase } from '../api/api-client';
import type { Webhook, WebhookWithSecret } from '../api/api-types';
import { useQuery } from '../api/query-cache';
import { useAction } from '../api/use-action';
import { ListTable } from '../layout/list-table';
import { useFocusHeading } from '../layout/use-focus-heading';
import { PaginationNav } from '../routes/pagination-nav';
import { SecretOnce } from './secret-once';
import { WebhookForm } from './webhook-form';
import { webhooksChanged, webhooksRevision } from './webhooks-revision';
import { severityText, WebhookStatus } from './webhook-status';
import { ErrorAlert } from '../layout/error-alert';

const WEBHOOKS_PER_PAGE = 20;

/** /admin/webhooks: create (the secret shown once), list, enable/disable, delete with confirmation. */
export default function WebhooksPage() {
  const location = useLocation();
  const page = Math.max(1, Number.parseInt(location.query['page'] ?? '1', 10) || 1);
  const result = useQuery(`webhooks:${page}:${webhooksRevision.value}`, () => api.listWebhooks(WEBHOOKS_PER_PAGE, (page - 1) * WEBHOOKS_PER_PAGE));
  const heading = useFocusHeading();
  const [created, setCreated] = useState<WebhookWithSecret | undefined>(undefined);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const [createState, runCreate] = useAction();
  const total = result.data?.pagination.total ?? 0;
  const pageCount = Math.max(1, Math.ceil(total / WEBHOOKS_PER_PAGE));
  const changed = (message: string): void => {
    setNotice(message);
    webhooksChanged();
  };
  return (
    <main>
      <h1 ref={heading} tabIndex={-1}>
        Webhooks
      </h1>
      <p class="notice">
        Webhooks send gateway events to your endpoints, signed with a secret shown once (X-Gateway-Signature and the Standard Webhooks headers).
      </p>
      {created === undefined ? (
        <WebhookForm
          idPrefix="new-webhook"
          title="Create a webhook"
          submitLabel="Create webhook"
          state={createState}
          onSubmit={(input) =>
            void runCreate(() => api.createWebhook(input)).then((hook) => {
              if (hook === undefined) return;
              setCreated(hook);
              changed(`Created the webhook to ${hook.url}.`);
            })
          }
        />
      ) : (
        <SecretOnce
          title={`Webhook to ${created.url} created`}
          secret={created.secret}
          note="Store the signing secret now: it is not shown again. Receivers verify with its base64-decoded bytes (docs/webhooks.md)."
          onDone={() => setCreated(undefined)}
        />
      )}
      <p role="status" class="notice">
        {notice}
      </p>
      <ListTable id="webhook-list" title="All webhooks" noun="webhooks" query={result} emptyText="No webhook yet." tableClass="webhooks" columns={['URL', 'Events', 'Severities', 'Status', 'Actions']}>
        {(items) =>
          items.map((hook) => (
            <WebhookRow key={hook.id} webhook={hook} onChanged={changed} />
          ))
        }
      </ListTable>
      <PaginationNav page={page} pageCount={pageCount} hrefOf={(n) => `${appBase.pathname}webhooks${n > 1 ? `?page=${n}` : ''}`} />
    </main>
  );
}

function WebhookRow({ webhook, onChanged }: { webhook: Webhook; onChanged: (message: string) => void }) {
  const [confirming, setConfirming] = useState(false);
  const [state, run] = useAction();
  const confirm = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (confirming) confirm.current?.focus();
  }, [confirming]);
  async function toggle(): Promise<void> {
    const saved = await run(() => api.setWebhookEnabled(webhook.id, !webhook.enabled));
    if (saved !== undefined) onChanged(`${saved.enabled ? 'Enabled' : 'Disabled'} the webhook to ${saved.url}.`);
  }
  async function remove(): Promise<void> {
    const done = await run(() => api.deleteWebhook(webhook.id).then(() => true));
    setConfirming(false);
    if (done === true) onChanged(`Deleted the webhook to ${webhook.url} and its delivery log.`);
  }
  return (
    <tr data-webhook={webhook.url}>
      <td class="url">
        <a href={`${appBase.pathname}webhooks/${encodeURIComponent(webhook.id)}`}>{webhook.url}</a>
        {webhook.description !== null && <div class="notice">{webhook.description}</div>}
      </td>
      <td>{webhook.events.join(', ')}</td>
      <td>{severityText(webhook)}</td>
      <td>
        <WebhookStatus webhook={webhook} />
      </td>
      <td>
        <div class="actions">
          <button type="button" class="secondary" disabled={state.busy} onClick={() => void toggle()} aria-label={`${webhook.enabled ? 'Disable' : 'Enable'} the webhook to ${webhook.url}`}>
            {webhook.enabled ? 'Disable' : 'Enable'}
          </button>
          {confirming ? (
            <>
              <button key="confirm" type="button" class="danger" ref={confirm} disabled={state.busy} onClick={() => void remove()}>
                Confirm delete
              </button>
              <button key="cancel" type="button" class="secondary" onClick={() => setConfirming(false)}>
                Cancel
              </button>
            </>
          ) : (
            <button type="button" class="danger" onClick={() => setConfirming(true)} aria-label={`Delete the webhook to ${webhook.url}`}>
              Delete
            </button>
          )}
        </div>
        <ErrorAlert message={state.error} />
      </td>
    </tr>
  );
}
