import { useState } from 'preact/hooks';
import { api, appBase } from '../api/api-client';
import type { Webhook, WebhookWithSecret } from '../api/api-types';
import { useAction } from '../api/use-action';
import { ConfirmButton } from '../layout/confirm-button';
import { ErrorAlert } from '../layout/error-alert';
import { ListTable } from '../layout/list-table';
import { PaginationNav } from '../layout/pagination-nav';
import { useFocusHeading } from '../layout/use-focus-heading';
import { usePagedList } from '../layout/use-paged-list';
import { SecretOnce } from '../layout/secret-once';
import { WebhookForm } from './webhook-form';
import { webhooksChanged, webhooksRevision } from './webhooks-revision';
import { severityText, WebhookStatus } from './webhook-status';

const WEBHOOKS_PER_PAGE = 20;

/** /admin/webhooks: create (the secret shown once), list, enable/disable, delete with confirmation. */
export default function WebhooksPage() {
  // The app-wide revision, not the page's own: a change on a webhook's page must show here too.
  const list = usePagedList({ prefix: 'webhooks:', variant: String(webhooksRevision.value), perPage: WEBHOOKS_PER_PAGE, load: ({ limit, offset }) => api.listWebhooks(limit, offset) });
  const heading = useFocusHeading();
  const [created, setCreated] = useState<WebhookWithSecret | undefined>(undefined);
  const [createState, runCreate] = useAction();
  const changed = (message: string): void => {
    list.changed(message);
    // The webhook's own page caches it under the app-wide revision too.
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
          noun="secret"
          testId="webhook-secret"
          title={`Webhook to ${created.url} created`}
          secret={created.secret}
          note="Store the signing secret now: it is not shown again. Receivers verify with its base64-decoded bytes (docs/webhooks.md)."
          onDone={() => setCreated(undefined)}
        />
      )}
      <p role="status" class="notice">
        {list.notice}
      </p>
      <ListTable id="webhook-list" title="All webhooks" noun="webhooks" query={list.query} emptyText="No webhook yet." tableClass="webhooks" columns={['URL', 'Events', 'Severities', 'Status', 'Actions']}>
        {(items) =>
          items.map((hook) => (
            <WebhookRow key={hook.id} webhook={hook} onChanged={changed} />
          ))
        }
      </ListTable>
      <PaginationNav {...list.pages} />
    </main>
  );
}

function WebhookRow({ webhook, onChanged }: { webhook: Webhook; onChanged: (message: string) => void }) {
  const [state, run] = useAction();
  async function toggle(): Promise<void> {
    const saved = await run(() => api.setWebhookEnabled(webhook.id, !webhook.enabled));
    if (saved !== undefined) onChanged(`${saved.enabled ? 'Enabled' : 'Disabled'} the webhook to ${saved.url}.`);
  }
  async function remove(): Promise<void> {
    const done = await run(() => api.deleteWebhook(webhook.id).then(() => true));
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
          <ConfirmButton label="Delete" confirmLabel="Confirm delete" accessibleName={`Delete the webhook to ${webhook.url}`} busy={state.busy} onConfirm={() => void remove()} />
        </div>
        <ErrorAlert message={state.error} />
      </td>
    </tr>
  );
}
