import { appBase } from '../api/api-client';
import { useAction } from '../api/use-action';
import { ErrorAlert } from '../layout/error-alert';
import { ListTable } from '../layout/list-table';
import { PaginationNav } from '../layout/pagination-nav';
import { useFocusHeading } from '../layout/use-focus-heading';
import { usePagedList } from '../layout/use-paged-list';
import { ConfirmButton } from '../layout/confirm-button';
import { opsApi } from '../ops/ops-api';
import type { Runbook } from '../ops/ops-types';

const RUNBOOKS_PER_PAGE = 20;

/** /admin/runbooks: every runbook with its trigger and actions; enable, disable, delete with confirmation. */
export default function RunbooksPage() {
  const base = appBase.pathname;
  const list = usePagedList({ prefix: 'runbooks:', perPage: RUNBOOKS_PER_PAGE, load: ({ limit, offset }) => opsApi.listRunbooks(limit, offset) });
  const heading = useFocusHeading();
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
        {list.notice}
      </p>
      <ListTable id="runbook-list" title="All runbooks" noun="runbooks" query={list.query} emptyText="No runbook yet." tableClass="runbooks" columns={['Name', 'Trigger', 'Actions', 'Approval', 'Enabled', 'Manage']}>
        {(items) =>
          items.map((runbook) => (
            <RunbookRow key={runbook.id} runbook={runbook} onChanged={list.changed} />
          ))
        }
      </ListTable>
      <PaginationNav {...list.pages} />
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
