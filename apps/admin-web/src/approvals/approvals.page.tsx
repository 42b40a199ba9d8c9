import { useState } from 'preact/hooks';
import { appBase } from '../api/api-client';
import { invalidateQueries, useQuery } from '../api/query-cache';
import { useAction } from '../api/use-action';
import { ErrorAlert } from '../layout/error-alert';
import { useFocusHeading } from '../layout/use-focus-heading';
import { ConfirmButton } from '../layout/confirm-button';
import { EXECUTION_STATUS_TEXT, ExecutionActions } from '../ops/execution-actions';
import { when } from '../ops/format';
import { opsApi } from '../ops/ops-api';
import type { RunbookExecution } from '../ops/ops-types';
import { DataTable } from '../layout/data-table';

const SHOWN = 50;

/** /admin/approvals: executions waiting for a decision (approve, reject with confirmation), and decided ones. */
export default function ApprovalsPage() {
  // Requests for approval arrive at any time and expire in minutes: opening the page always asks
  // (the cache's 15 s reuse is for pages whose data changes only by the admin's hand).
  useState(() => invalidateQueries('approvals:'));
  const [revision, setRevision] = useState(0);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const pending = useQuery(`approvals:pending:${revision}`, () => opsApi.listExecutions({ status: 'pending_approval', limit: SHOWN }));
  const recent = useQuery(`approvals:recent:${revision}`, () => opsApi.listExecutions({ limit: SHOWN }));
  const heading = useFocusHeading();
  const decided = (recent.data?.items ?? []).filter((e) => e.decidedBy != null);
  return (
    <main>
      <h1 ref={heading} tabIndex={-1}>
        Approvals
      </h1>
      <p class="notice">
        Runbook executions that need an admin's decision before they run. Approving runs the actions at once (the kill switch and hourly limits still apply). <button type="button" class="secondary" onClick={() => setRevision((r) => r + 1)}>Refresh</button>
      </p>
      <p role="status" class="notice">
        {notice}
      </p>
      <h2 id="pending-title">Waiting for approval</h2>
      {pending.error !== undefined && <ErrorAlert message={`The pending approvals could not be loaded: ${pending.error.message}`} />}
      {pending.data !== undefined && pending.data.items.length === 0 && <p>Nothing waits for approval.</p>}
      {pending.data !== undefined && pending.data.items.length > 0 && (
        <DataTable labelledBy="pending-title" tableClass="approvals-pending" columns={['Runbook', 'Event', 'Would run', 'Expires', 'Decision']}>
          {pending.data.items.map((execution) => (
            <PendingRow
              key={execution.id}
              execution={execution}
              onDecided={(after) => {
                // The runbook's page lists its executions: what it cached before the decision is stale.
                invalidateQueries('runbook-executions:');
                setNotice(`${after.runbookName ?? 'The execution'}: ${after.status === undefined ? 'decided' : EXECUTION_STATUS_TEXT[after.status]}.`);
                setRevision((r) => r + 1);
              }}
            />
          ))}
        </DataTable>
      )}
      <h2 id="decided-title">Decided</h2>
      {recent.error !== undefined && <ErrorAlert message={`The decided executions could not be loaded: ${recent.error.message}`} />}
      {recent.data !== undefined && decided.length === 0 && <p>No decision among the last {SHOWN} executions.</p>}
      {decided.length > 0 && (
        <DataTable labelledBy="decided-title" tableClass="approvals-decided" columns={['Runbook', 'Status', 'Decided by', 'When', 'Actions and results']}>
          {decided.map((execution) => (
            <tr key={execution.id} data-execution={execution.id}>
              <td>
                <a href={`${appBase.pathname}runbooks/${encodeURIComponent(execution.runbookId ?? '')}`}>{execution.runbookName}</a>
              </td>
              <td>{execution.status === undefined ? '—' : EXECUTION_STATUS_TEXT[execution.status]}</td>
              <td>{execution.decidedBy}</td>
              <td>{when(execution.decidedAt)}</td>
              <td>
                <ExecutionActions execution={execution} />
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </main>
  );
}

function PendingRow({ execution, onDecided }: { execution: RunbookExecution; onDecided: (after: RunbookExecution) => void }) {
  const [state, run] = useAction();
  const id = execution.id ?? '';
  const name = execution.runbookName ?? '';
  async function decide(decision: 'approve' | 'reject'): Promise<void> {
    const after = await run(() => opsApi.decideExecution(id, decision));
    if (after !== undefined) onDecided(after);
  }
  const confidence = (execution.event as { confidence?: unknown } | undefined)?.confidence;
  return (
    <tr data-execution={id}>
      <td>
        <a href={`${appBase.pathname}runbooks/${encodeURIComponent(execution.runbookId ?? '')}`}>{name}</a>
      </td>
      <td>
        <code>{execution.eventType}</code>
        {typeof confidence === 'number' && <div class="notice">confidence {confidence}</div>}
      </td>
      <td>
        <ExecutionActions execution={execution} />
      </td>
      <td>{when(execution.expiresAt)}</td>
      <td>
        <div class="actions">
          <ConfirmButton label="Approve" confirmLabel="Confirm approve" accessibleName={`Approve ${name}`} danger={false} busy={state.busy} onConfirm={() => void decide('approve')} />
          <ConfirmButton label="Reject" confirmLabel="Confirm reject" accessibleName={`Reject ${name}`} busy={state.busy} onConfirm={() => void decide('reject')} />
        </div>
        <ErrorAlert message={state.error} />
      </td>
    </tr>
  );
}
