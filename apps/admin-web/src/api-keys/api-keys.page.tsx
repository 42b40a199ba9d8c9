import { useLocation } from 'preact-iso';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, appBase } from '../api/api-client';
import type { ApiKey, CreatedApiKey } from '../api/api-types';
import { useQuery, useRevision } from '../api/query-cache';
import { useAction } from '../api/use-action';
import { describedBy, FormField } from '../layout/form-field';
import { FormFooter, ListTable } from '../layout/list-table';
import { useFocusHeading } from '../layout/use-focus-heading';
import { PaginationNav } from '../routes/pagination-nav';
import { ErrorAlert } from '../layout/error-alert';

const KEYS_PER_PAGE = 20;
const STATUS_TEXT: Record<ApiKey['status'], string> = { active: 'Active', expired: 'Expired', revoked: 'Revoked' };

/** /admin/api-keys: create (the key shown once, with a copy button), list, revoke (with confirmation). */
export default function ApiKeysPage() {
  const location = useLocation();
  const page = Math.max(1, Number.parseInt(location.query['page'] ?? '1', 10) || 1);
  const [revision, bumpRevision] = useRevision('api-keys:');
  const result = useQuery(`api-keys:${page}:${revision}`, () => api.listApiKeys(KEYS_PER_PAGE, (page - 1) * KEYS_PER_PAGE));
  const heading = useFocusHeading();
  const [created, setCreated] = useState<CreatedApiKey | undefined>(undefined);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const total = result.data?.pagination.total ?? 0;
  const pageCount = Math.max(1, Math.ceil(total / KEYS_PER_PAGE));
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
            bumpRevision();
          }}
        />
      ) : (
        <NewKey created={created} onDone={() => setCreated(undefined)} />
      )}
      <p role="status" class="notice">
        {notice}
      </p>
      <ListTable id="key-list" title="All keys" noun="keys" query={result} emptyText="No key yet." tableClass="api-keys" columns={['Name', 'Prefix', 'Status', 'Created', 'Expires', 'Actions']}>
        {(items) =>
          items.map((key) => (
            <KeyRow
              key={key.id}
              apiKey={key}
              onRevoked={() => {
                setNotice(`Revoked ${key.name} (${key.prefix}…).`);
                bumpRevision();
              }}
            />
          ))
        }
      </ListTable>
      <PaginationNav page={page} pageCount={pageCount} hrefOf={(n) => `${appBase.pathname}api-keys${n > 1 ? `?page=${n}` : ''}`} />
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

/** The key in plain text, this once: it lives only in this component's state, never in a cache. */
function NewKey({ created, onDone }: { created: CreatedApiKey; onDone: () => void }) {
  const [copied, setCopied] = useState<string | undefined>(undefined);
  const title = useRef<HTMLHeadingElement>(null);
  useEffect(() => title.current?.focus(), []);
  async function copy(): Promise<void> {
    try {
      await navigator.clipboard.writeText(created.key);
      setCopied('Copied to the clipboard.');
    } catch {
      setCopied('The browser refused the clipboard: select the key and copy it.');
    }
  }
  return (
    <section class="secret" aria-labelledby="new-key-title">
      <h2 id="new-key-title" ref={title} tabIndex={-1}>
        Key {created.name} created
      </h2>
      <p>Store it now: it is not shown again.</p>
      <code data-testid="new-api-key">{created.key}</code>
      <button type="button" onClick={() => void copy()}>
        Copy key
      </button>
      <button type="button" class="secondary" onClick={onDone}>
        Done
      </button>
      <span role="status">{copied}</span>
    </section>
  );
}

function KeyRow({ apiKey, onRevoked }: { apiKey: ApiKey; onRevoked: () => void }) {
  const [confirming, setConfirming] = useState(false);
  const [state, run] = useAction();
  const confirm = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (confirming) confirm.current?.focus();
  }, [confirming]);
  async function revoke(): Promise<void> {
    const done = await run(() => api.revokeApiKey(apiKey.id).then(() => true));
    setConfirming(false);
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
            {confirming ? (
              <>
                <button key="confirm" type="button" class="danger" ref={confirm} disabled={state.busy} onClick={() => void revoke()}>
                  Confirm revoke
                </button>
                <button key="cancel" type="button" class="secondary" onClick={() => setConfirming(false)}>
                  Cancel
                </button>
              </>
            ) : (
              <button type="button" class="danger" onClick={() => setConfirming(true)} aria-label={`Revoke ${apiKey.name}`}>
                Revoke
              </button>
            )}
          </div>
        )}
        <ErrorAlert message={state.error} />
      </td>
    </tr>
  );
}
