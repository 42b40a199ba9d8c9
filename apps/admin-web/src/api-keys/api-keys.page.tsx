import { useState } from 'preact/hooks';
import { api } from '../api/api-client';
import type { ApiKey, CreatedApiKey } from '../api/api-types';
import { useAction } from '../api/use-action';
import { ConfirmButton } from '../layout/confirm-button';
import { ErrorAlert } from '../layout/error-alert';
import { describedBy, FormField } from '../layout/form-field';
import { FormFooter, ListTable } from '../layout/list-table';
import { PaginationNav } from '../layout/pagination-nav';
import { SecretOnce } from '../layout/secret-once';
import { useFocusHeading } from '../layout/use-focus-heading';
import { usePagedList } from '../layout/use-paged-list';

const KEYS_PER_PAGE = 20;
const STATUS_TEXT: Record<ApiKey['status'], string> = { active: 'Active', expired: 'Expired', revoked: 'Revoked' };

/** /admin/api-keys: create (the key shown once, with a copy button), list, revoke (with confirmation). */
export default function ApiKeysPage() {
  const list = usePagedList({ prefix: 'api-keys:', perPage: KEYS_PER_PAGE, load: ({ limit, offset }) => api.listApiKeys(limit, offset) });
  const heading = useFocusHeading();
  const [created, setCreated] = useState<CreatedApiKey | undefined>(undefined);
  return (
    <main>
      <h1 ref={heading} tabIndex={-1}>
        API keys
      </h1>
      <p class="notice">Keys authenticate clients of routes with <code>auth.type: apiKey</code>. A key is shown once, when it is created.</p>
      {created === undefined ? (
        <CreateKeyForm
          onCreated={(key) => {
            setCreated(key);
            list.changed();
          }}
        />
      ) : (
        // The key lives only in this page's state, never in a cache.
        <SecretOnce noun="key" testId="new-api-key" title={`Key ${created.name} created`} secret={created.key} note="Store it now: it is not shown again." onDone={() => setCreated(undefined)} />
      )}
      <p role="status" class="notice">
        {list.notice}
      </p>
      <ListTable id="key-list" title="All keys" noun="keys" query={list.query} emptyText="No key yet." tableClass="api-keys" columns={['Name', 'Prefix', 'Status', 'Created', 'Expires', 'Actions']}>
        {(items) =>
          items.map((key) => (
            <KeyRow
              key={key.id}
              apiKey={key}
              onRevoked={() => list.changed(`Revoked ${key.name} (${key.prefix}…).`)}
            />
          ))
        }
      </ListTable>
      <PaginationNav {...list.pages} />
    </main>
  );
}

function CreateKeyForm({ onCreated }: { onCreated: (key: CreatedApiKey) => void }) {
  const [state, run] = useAction();
  async function submit(event: Event): Promise<void> {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    const expires = String(data.get('expiresAt') ?? '');
    // datetime-local has no zone: it is the admin's local time, sent as an instant in UTC.
    const expiresAt = expires === '' ? undefined : new Date(expires).toISOString();
    const key = await run(() => api.createApiKey({ name: String(data.get('name') ?? '').trim(), ...(expiresAt === undefined ? {} : { expiresAt }) }));
    if (key !== undefined) onCreated(key);
  }
  const { fieldErrors } = state;
  return (
    <form class="form-grid" onSubmit={(e) => void submit(e)} aria-labelledby="create-key-title">
      <h2 id="create-key-title">Create a key</h2>
      <FormField id="key-name" label="Name" error={fieldErrors['name']} hint="Who or what uses the key, e.g. billing-service.">
        <input id="key-name" name="name" type="text" required maxLength={100} autoComplete="off" {...describedBy('key-name', fieldErrors['name'], true)} />
      </FormField>
      <FormField id="key-expires" label="Expires (optional)" error={fieldErrors['expiresAt']} hint="Your local time. Empty: the key does not expire.">
        <input id="key-expires" name="expiresAt" type="datetime-local" {...describedBy('key-expires', fieldErrors['expiresAt'], true)} />
      </FormField>
      <FormFooter error={state.error} busy={state.busy} label="Create key" busyLabel="Creating…" />
    </form>
  );
}

function KeyRow({ apiKey, onRevoked }: { apiKey: ApiKey; onRevoked: () => void }) {
  const [state, run] = useAction();
  async function revoke(): Promise<void> {
    const done = await run(() => api.revokeApiKey(apiKey.id).then(() => true));
    if (done === true) onRevoked();
  }
  return (
    <tr data-key={apiKey.name}>
      <td>{apiKey.name}</td>
      <td>
        <code>{apiKey.prefix}…</code>
      </td>
      <td>{STATUS_TEXT[apiKey.status]}</td>
      <td>
        <time dateTime={apiKey.createdAt}>{new Date(apiKey.createdAt).toLocaleString()}</time>
      </td>
      <td>{apiKey.expiresAt === null ? 'Never' : <time dateTime={apiKey.expiresAt}>{new Date(apiKey.expiresAt).toLocaleString()}</time>}</td>
      <td>
        {apiKey.status === 'active' && (
          <div class="actions">
            <ConfirmButton label="Revoke" confirmLabel="Confirm revoke" accessibleName={`Revoke ${apiKey.name}`} busy={state.busy} onConfirm={() => void revoke()} />
          </div>
        )}
        <ErrorAlert message={state.error} />
      </td>
    </tr>
  );
}
