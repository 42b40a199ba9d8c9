import { useState } from 'preact/hooks';
import { appBase } from '../api/api-client';
import { useQuery } from '../api/query-cache';
import { useAction } from '../api/use-action';
import { ErrorAlert } from '../layout/error-alert';
import { useFocusHeading } from '../layout/use-focus-heading';
import { ConfirmButton } from '../ops/confirm-button';
import { opsApi } from '../ops/ops-api';
import type { Runbook } from '../ops/ops-types';

const RUNBOOKS_SHOWN = 100;

/** /admin/runbooks: every runbook with its trigger and actions; enable, disable, delete with confirmation. */
export default function RunbooksPage() {
  const base = appBase.pathname;
  const [revision, setRevision] = useState(0);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const result = useQuery(`runbooks:${revision}`, () => opsApi.listRunbooks(RUNBOOKS_SHOWN, 0));
  const heading = useFocusHeading();
  const changed = (message: string) => {
    setNotice(message);
    setRevision((r) => r + 1);
  };
  return (
    <main>
      <h1 ref={heading} tabIndex={-1}>
        Runbooks
      </h1>
      <p class="notice">What the gateway does when an event matches: hold a breaker open, scale or restart the data planes. See also the <a href={`${base}approvals`}>approvals</a>.</p>
      <p>
        <a class="button" href={`${base}runbooks/new`}>
          New runbook
        </a>
      </p>
      <p role="status" class="notice">
        {notice}
      </p>
      <h2 id="runbook-list">All runbooks</h2>
      {result.error !== undefined && <ErrorAlert message={`The runbooks could not be loaded: ${result.error.message}`} />}
      {result.loading && <p>Loading runbooks…</p>}
      {result.data !== undefined && result.data.items.length === 0 && <p>No runbook yet.</p>}
      {result.data !== undefined && result.data.items.length > 0 && (
        <div class="table-scroll" tabIndex={0} role="region" aria-labelledby="runbook-list">
          <table class="grid runbooks">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Trigger</th>
                <th scope="col">Actions</th>
                <th scope="col">Approval</th>
                <th scope="col">Enabled</th>
                <th scope="col">Manage</th>
              </tr>
            </thead>
            <tbody>
              {result.data.items.map((runbook) => (
                <RunbookRow key={runbook.id} runbook={runbook} onChanged={changed} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {result.data !== undefined && result.data.pagination.total > RUNBOOKS_SHOWN && (
        <p class="notice">The first {RUNBOOKS_SHOWN} of {result.data.pagination.total} runbooks are shown.</p>
      )}
    </main>
  );
}

function RunbookRow({ runbook, onChanged }: { runbook: Runbook; onChanged: (message: string) => void }) {
  const [state, run] = useAction();
  const name = runbook.name ?? '';
  const id = runbook.id ?? '';
  async function toggle(): Promise<void> {
    const next = await run(() => opsApi.setRunbookEnabled(id, runbook.enabled !== true));
    if (next !== undefined) onChanged(`${name} ${next.enabled === true ? 'enabled' : 'disabled'}.`);
  }
  async function remove(): Promise<void> {
    const done = await run(() => opsApi.deleteRunbook(id).then(() => true));
    if (done === true) onChanged(`${name} deleted.`);
  }
  return (
    <tr data-runbook={name}>
      <td>
        <a href={`${appBase.pathname}runbooks/${encodeURIComponent(id)}`}>{name}</a>
      </td>
      <td>
        <code>{runbook.trigger?.eventType}</code>
      </td>
      <td>{(runbook.actions ?? []).map((a) => a.type).join(', ')}</td>
      <td>{runbook.safety?.requiresApproval === true ? 'Required' : 'Not required'}</td>
      <td>{runbook.enabled === true ? 'Yes' : 'No'}</td>
      <td>
        <div class="actions">
          <button type="button" class="secondary" disabled={state.busy} onClick={() => void toggle()} aria-label={`${runbook.enabled === true ? 'Disable' : 'Enable'} ${name}`}>
            {runbook.enabled === true ? 'Disable' : 'Enable'}
          </button>
          <ConfirmButton label="Delete" confirmLabel="Confirm delete" accessibleName={`Delete ${name}`} busy={state.busy} onConfirm={() => void remove()} />
        </div>
        <ErrorAlert message={state.error} />
      </td>
    </tr>
  );
}
