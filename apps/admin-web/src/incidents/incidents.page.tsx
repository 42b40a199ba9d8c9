import { useLocation } from 'preact-iso';
import { appBase } from '../api/api-client';
import { useState } from 'preact/hooks';
import { invalidateQueries, useQuery } from '../api/query-cache';
import { ErrorAlert } from '../layout/error-alert';
import { useFocusHeading } from '../layout/use-focus-heading';
import { when } from '../ops/format';
import { opsApi } from '../ops/ops-api';
import type { IncidentStatus } from '../ops/ops-types';
import { INCIDENT_STATUS_TEXT, INCIDENT_STATUSES } from './incident-status';

const SHOWN = 100;

/** /admin/incidents: incidents, most recent activity first, filtered by status (`?status=open`). */
export default function IncidentsPage() {
  const location = useLocation();
  const base = appBase.pathname;
  // Events open and join incidents at any time: opening the page always asks.
  useState(() => invalidateQueries('incidents:'));
  const wanted = location.query['status'];
  const status = INCIDENT_STATUSES.find((s) => s === wanted);
  const result = useQuery(`incidents:${status ?? 'all'}`, () => opsApi.listIncidents(status, SHOWN));
  const heading = useFocusHeading();
  return (
    <main>
      <h1 ref={heading} tabIndex={-1}>
        Incidents
      </h1>
      <p class="notice">Related events grouped by route or upstream: a critical event opens one, a recovery signal resolves it.</p>
      <nav aria-label="Filter by status" class="actions">
        <a href={`${base}incidents`} aria-current={status === undefined ? 'page' : undefined}>
          All
        </a>
        {INCIDENT_STATUSES.map((s) => (
          <a key={s} href={`${base}incidents?status=${s}`} aria-current={status === s ? 'page' : undefined}>
            {INCIDENT_STATUS_TEXT[s]}
          </a>
        ))}
      </nav>
      <h2 id="incident-list">{status === undefined ? 'All incidents' : `${INCIDENT_STATUS_TEXT[status as IncidentStatus]} incidents`}</h2>
      {result.error !== undefined && <ErrorAlert message={`The incidents could not be loaded: ${result.error.message}`} />}
      {result.loading && <p>Loading incidents…</p>}
      {result.data !== undefined && result.data.items.length === 0 && <p>No incident.</p>}
      {result.data !== undefined && result.data.items.length > 0 && (
        <div class="table-scroll" tabIndex={0} role="region" aria-labelledby="incident-list">
          <table class="grid incidents">
            <thead>
              <tr>
                <th scope="col">Title</th>
                <th scope="col">Status</th>
                <th scope="col">Severity</th>
                <th scope="col">Routes</th>
                <th scope="col">Upstreams</th>
                <th scope="col">Last event</th>
              </tr>
            </thead>
            <tbody>
              {result.data.items.map((incident) => (
                <tr key={incident.id} data-incident={incident.title}>
                  <td>
                    <a href={`${base}incidents/${encodeURIComponent(incident.id ?? '')}`}>{incident.title}</a>
                  </td>
                  <td>{incident.status === undefined ? '—' : INCIDENT_STATUS_TEXT[incident.status]}</td>
                  <td>{incident.severity}</td>
                  <td>{(incident.routes ?? []).join(', ') || '—'}</td>
                  <td>{(incident.upstreams ?? []).join(', ') || '—'}</td>
                  <td>{when(incident.lastEventAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </main>
  );
}
