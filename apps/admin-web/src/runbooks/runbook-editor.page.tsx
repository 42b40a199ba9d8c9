import { useLocation, useRoute } from 'preact-iso';
import { useState } from 'preact/hooks';
import { appBase } from '../api/api-client';
import { invalidateQueries, useQuery } from '../api/query-cache';
import { useAction } from '../api/use-action';
import { ErrorAlert } from '../layout/error-alert';
import { describedBy, FormField } from '../layout/form-field';
import { useFocusHeading } from '../layout/use-focus-heading';
import { errorsUnder, when } from '../ops/format';
import { opsApi } from '../ops/ops-api';
import type { Runbook } from '../ops/ops-types';
import { EXECUTION_STATUS_TEXT, ExecutionActions } from '../ops/execution-actions';
import { CONDITIONS, conditionText, EXAMPLE_ACTIONS, RUNBOOK_FIELDS, runbookInputOf } from './runbook-form';
import { DataTable } from '../layout/data-table';

/** /admin/runbooks/new and /admin/runbooks/:id: the runbook's form and, for a stored one, its executions. */
export default function RunbookEditorPage() {
  const { params } = useRoute();
  const id = params['id'];
  const existing = useQuery(`runbook:${id ?? 'new'}`, () => (id === undefined ? Promise.resolve(undefined) : opsApi.getRunbook(id)));
  const heading = useFocusHeading();
  const base = appBase.pathname;
  return (
    <main>
      <p>
        <a href={`${base}runbooks`}>← All runbooks</a>
      </p>
      <h1 ref={heading} tabIndex={-1}>
        {id === undefined ? 'New runbook' : `Runbook ${existing.data?.name ?? ''}`}
      </h1>
      {existing.error !== undefined && <ErrorAlert message={`The runbook could not be loaded: ${existing.error.message}`} />}
      {existing.loading && <p role="status">Loading the runbook…</p>}
      {!existing.loading && existing.error === undefined && <RunbookForm key={existing.data?.updatedAt ?? 'new'} runbook={existing.data} />}
      {id !== undefined && existing.data !== undefined && <Executions runbookId={id} />}
    </main>
  );
}

function RunbookForm({ runbook }: { runbook: Runbook | undefined }) {
  const location = useLocation();
  const [state, run] = useAction();
  const [actionsError, setActionsError] = useState<string | undefined>(undefined);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const errors = state.fieldErrors;
  async function submit(event: Event): Promise<void> {
    event.preventDefault();
    setNotice(undefined);
    const read = runbookInputOf(new FormData(event.currentTarget as HTMLFormElement));
    if ('actionsError' in read) {
      setActionsError(read.actionsError);
      return;
    }
    setActionsError(undefined);
    const saved = await run(() => (runbook?.id === undefined ? opsApi.createRunbook(read.input) : opsApi.replaceRunbook(runbook.id, read.input)));
    if (saved === undefined) return;
    invalidateQueries('runbook');
    if (runbook === undefined) location.route(`${appBase.pathname}runbooks/${encodeURIComponent(saved.id ?? '')}`);
    else setNotice(`Saved ${saved.name ?? ''}.`);
  }
  // Field errors no control shows (an unknown field, say) are listed above the button.
  const unplaced = Object.entries(errors).filter(([field]) => !RUNBOOK_FIELDS.some((known) => field === known || field.startsWith(`${known}[`) || field.startsWith(`${known}.`)));
  const field = (name: string) => errorsUnder(errors, name);
  const actionsMessage = actionsError ?? field('actions');
  return (
    <form class="form-grid runbook-form" onSubmit={(e) => void submit(e)} noValidate aria-label="Runbook">
      <FormField id="runbook-name" label="Name" error={field('name')}>
        <input id="runbook-name" name="name" type="text" maxLength={100} defaultValue={runbook?.name ?? ''} {...describedBy('runbook-name', field('name'))} />
      </FormField>
      <label class="inline">
        <input name="enabled" type="checkbox" defaultChecked={runbook?.enabled ?? true} /> Enabled
      </label>
      <fieldset>
        <legend>Trigger</legend>
        <FormField id="runbook-event-type" label="Event type" error={field('trigger.eventType')} hint="An event kind, e.g. ERROR_RATE_SPIKE or circuit_breaker.opened.">
          <input id="runbook-event-type" name="eventType" type="text" defaultValue={runbook?.trigger?.eventType ?? ''} {...describedBy('runbook-event-type', field('trigger.eventType'), true)} />
        </FormField>
        {CONDITIONS.map(({ key, label, hint }) => {
          const id = `runbook-condition-${key.replace('.', '-')}`;
          const error = field(`trigger.conditions.${key}`);
          return (
            <FormField key={key} id={id} label={label} error={error} hint={hint}>
              <input id={id} name={`condition:${key}`} type="text" inputMode={key.endsWith('.min') ? 'decimal' : 'text'} defaultValue={conditionText(runbook, key)} {...describedBy(id, error, true)} />
            </FormField>
          );
        })}
      </fieldset>
      <FormField id="runbook-actions" label="Actions (JSON)" error={actionsMessage} hint="CIRCUIT_BREAKER {operation: OPEN, duration, routeId?}, SCALE_RESOURCE {replicas | delta}, RESTART_POD {graceful?, drainTimeout?}.">
        <textarea id="runbook-actions" name="actions" rows={6} spellcheck={false} defaultValue={JSON.stringify(runbook?.actions ?? EXAMPLE_ACTIONS, null, 2)} {...describedBy('runbook-actions', actionsMessage, true)} />
      </FormField>
      <fieldset>
        <legend>Safety</legend>
        <label class="inline">
          <input name="requiresApproval" type="checkbox" defaultChecked={runbook?.safety?.requiresApproval ?? true} /> Requires approval
        </label>
        {field('safety.requiresApproval') !== undefined && <span class="field-error">{field('safety.requiresApproval')}</span>}
        <FormField id="runbook-max-per-hour" label="Max executions per hour" error={field('safety.maxExecutionsPerHour')} hint="1 to 100.">
          <input id="runbook-max-per-hour" name="maxExecutionsPerHour" type="number" defaultValue={String(runbook?.safety?.maxExecutionsPerHour ?? 3)} {...describedBy('runbook-max-per-hour', field('safety.maxExecutionsPerHour'), true)} />
        </FormField>
        <FormField id="runbook-rollback" label="Roll back after (minutes)" error={field('safety.rollbackAfterMinutes')} hint="0.05 to 10080; empty: never.">
          <input id="runbook-rollback" name="rollbackAfterMinutes" type="number" step="any" defaultValue={runbook?.safety?.rollbackAfterMinutes == null ? '' : String(runbook.safety.rollbackAfterMinutes)} {...describedBy('runbook-rollback', field('safety.rollbackAfterMinutes'), true)} />
        </FormField>
        <label class="inline">
          <input name="dryRun" type="checkbox" defaultChecked={runbook?.safety?.dryRun ?? false} /> Dry run (only record what would run)
        </label>
      </fieldset>
      {unplaced.length > 0 && <ErrorAlert message={unplaced.map(([, message]) => message).join(' ')} />}
      <ErrorAlert message={state.error} />
      <p role="status" class="notice">
        {notice}
      </p>
      <div>
        <button type="submit" disabled={state.busy}>
          {state.busy ? 'Saving…' : runbook === undefined ? 'Create runbook' : 'Save runbook'}
        </button>
      </div>
    </form>
  );
}

function Executions({ runbookId }: { runbookId: string }) {
  const result = useQuery(`runbook-executions:${runbookId}`, () => opsApi.listExecutions({ runbookId, limit: 50 }));
  return (
    <section aria-labelledby="executions-title">
      <h2 id="executions-title">Executions</h2>
      {result.error !== undefined && <ErrorAlert message={`The executions could not be loaded: ${result.error.message}`} />}
      {result.data !== undefined && result.data.items.length === 0 && <p>No execution yet.</p>}
      {result.data !== undefined && result.data.items.length > 0 && (
        <DataTable labelledBy="executions-title" tableClass="executions" columns={['When', 'Event', 'Status', 'Decided', 'Actions and results']}>
          {result.data.items.map((execution) => (
            <tr key={execution.id} data-execution={execution.id}>
              <td>{when(execution.createdAt)}</td>
              <td>
                <code>{execution.eventType}</code> {execution.eventId}
              </td>
              <td>
                {execution.status === undefined ? '—' : EXECUTION_STATUS_TEXT[execution.status]}
                {execution.reason != null && <div class="notice">{execution.reason}</div>}
              </td>
              <td>{execution.decidedBy == null ? '—' : `${execution.decidedBy}, ${when(execution.decidedAt)}`}</td>
              <td>
                <ExecutionActions execution={execution} />
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}
