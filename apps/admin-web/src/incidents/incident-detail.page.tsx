import { useRoute } from 'preact-iso';
import { useState } from 'preact/hooks';
import { appBase } from '../api/api-client';
import { invalidateQueries, useQuery } from '../api/query-cache';
import { useAction } from '../api/use-action';
import { ErrorAlert } from '../layout/error-alert';
import { describedBy, FormField } from '../layout/form-field';
import { useFocusHeading } from '../layout/use-focus-heading';
import { errorsUnder, when } from '../ops/format';
import { opsApi } from '../ops/ops-api';
import type { Analysis, Incident } from '../ops/ops-types';
import { AnalysisResult } from './analysis-result';
import { INCIDENT_STATUS_TEXT, STATUS_CHANGES } from './incident-status';

/** /admin/incidents/:id: the incident, its status changes, notes, an analysis and the timeline. */
export default function IncidentDetailPage() {
  const { params } = useRoute();
  const id = params['id'] ?? '';
  const loaded = useQuery(`incident:${id}`, () => opsApi.getIncident(id));
  const heading = useFocusHeading();
  // A reload keeps the incident shown while it asks again, so the analysis just shown stays.
  const changed = () => {
    invalidateQueries('incidents:');
    loaded.reload();
  };
  const incident = loaded.data;
  return (
    <main>
      <p>
        <a href={`${appBase.pathname}incidents`}>← All incidents</a>
      </p>
      <h1 ref={heading} tabIndex={-1}>
        Incident {incident?.title ?? ''}
      </h1>
      {loaded.error !== undefined && <ErrorAlert message={`The incident could not be loaded: ${loaded.error.message}`} />}
      {loaded.loading && incident === undefined && <p role="status">Loading the incident…</p>}
      {incident !== undefined && (
        <>
          <dl class="fields">
            <dt>Status</dt>
            <dd data-testid="incident-status">{incident.status === undefined ? '—' : INCIDENT_STATUS_TEXT[incident.status]}</dd>
            <dt>Severity</dt>
            <dd>{incident.severity}</dd>
            <dt>Routes</dt>
            <dd>{(incident.routes ?? []).join(', ') || '—'}</dd>
            <dt>Upstreams</dt>
            <dd>{(incident.upstreams ?? []).join(', ') || '—'}</dd>
            <dt>Hypothesis</dt>
            <dd>{incident.hypothesis ?? '—'}</dd>
            <dt>Opened</dt>
            <dd>{when(incident.createdAt)}</dd>
            <dt>Resolved</dt>
            <dd>{when(incident.resolvedAt)}</dd>
          </dl>
          <StatusButtons incident={incident} onChanged={changed} />
          <Analyse incidentId={id} onAnalysed={changed} />
          <NoteForm incidentId={id} onAdded={changed} />
          <Timeline incident={incident} />
        </>
      )}
    </main>
  );
}

function StatusButtons({ incident, onChanged }: { incident: Incident; onChanged: () => void }) {
  const [state, run] = useAction();
  const [notice, setNotice] = useState<string | undefined>(undefined);
  async function move(to: NonNullable<Incident['status']>): Promise<void> {
    const after = await run(() => opsApi.updateIncident(incident.id ?? '', { status: to }));
    if (after === undefined) return;
    setNotice(`Now ${INCIDENT_STATUS_TEXT[to].toLowerCase()}.`);
    onChanged();
  }
  return (
    <section aria-labelledby="status-title">
      <h2 id="status-title">Status</h2>
      <div class="actions">
        {STATUS_CHANGES.filter((change) => change.to !== incident.status).map((change) => (
          <button key={change.to} type="button" class="secondary" disabled={state.busy} onClick={() => void move(change.to)}>
            {change.verb}
          </button>
        ))}
      </div>
      <ErrorAlert message={state.error ?? errorsUnder(state.fieldErrors, 'status')} />
      <p role="status" class="notice">
        {notice}
      </p>
    </section>
  );
}

function Analyse({ incidentId, onAnalysed }: { incidentId: string; onAnalysed: () => void }) {
  const [state, run] = useAction();
  const [analysis, setAnalysis] = useState<Analysis | undefined>(undefined);
  async function analyse(): Promise<void> {
    const result = await run(() => opsApi.analyseIncident(incidentId));
    if (result === undefined) return;
    setAnalysis(result);
    onAnalysed();
  }
  return (
    <section aria-labelledby="analyse-title">
      <h2 id="analyse-title">Root cause</h2>
      <button type="button" disabled={state.busy} onClick={() => void analyse()}>
        {state.busy ? 'Analysing…' : 'Analyse'}
      </button>
      <ErrorAlert message={state.error} />
      <div aria-live="polite">{analysis !== undefined && <AnalysisResult analysis={analysis} />}</div>
    </section>
  );
}

function NoteForm({ incidentId, onAdded }: { incidentId: string; onAdded: () => void }) {
  const [state, run] = useAction();
  const [text, setText] = useState('');
  const error = errorsUnder(state.fieldErrors, 'text');
  async function submit(event: Event): Promise<void> {
    event.preventDefault();
    const done = await run(() => opsApi.addNote(incidentId, text).then(() => true));
    if (done !== true) return;
    setText('');
    onAdded();
  }
  return (
    <form class="form-grid" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="note-title">
      <h2 id="note-title">Add a note</h2>
      <FormField id="incident-note" label="Note" error={error}>
        <textarea id="incident-note" name="text" rows={3} value={text} onInput={(e) => setText((e.currentTarget as HTMLTextAreaElement).value)} {...describedBy('incident-note', error)} />
      </FormField>
      <ErrorAlert message={state.error} />
      <div>
        <button type="submit" disabled={state.busy}>
          Add note
        </button>
      </div>
    </form>
  );
}

function Timeline({ incident }: { incident: Incident }) {
  const entries = [...(incident.timeline ?? [])].reverse();
  return (
    <section aria-labelledby="timeline-title">
      <h2 id="timeline-title">Timeline</h2>
      <p class="notice">Newest first.</p>
      {entries.length === 0 ? (
        <p>Nothing yet.</p>
      ) : (
        <ol class="timeline">
          {entries.map((entry, index) => (
            <li key={index} data-kind={entry.kind}>
              <time dateTime={entry.at}>{when(entry.at)}</time> <strong>{entry.kind}</strong> {entry.by !== undefined && <span class="notice">by {entry.by}</span>}
              <div>{entry.text}</div>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
