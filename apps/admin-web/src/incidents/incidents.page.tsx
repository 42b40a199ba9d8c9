import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { appBase } from '../api/api-client';
import { invalidateQueries } from '../api/query-cache';
import { ListTable } from '../layout/list-table';
import { PaginationNav } from '../layout/pagination-nav';
import { useFocusHeading } from '../layout/use-focus-heading';
import { usePagedList } from '../layout/use-paged-list';
import { when } from '../ops/format';
import { opsApi } from '../ops/ops-api';
import { INCIDENT_STATUS_TEXT, INCIDENT_STATUSES } from './incident-status';

const INCIDENTS_PER_PAGE = 20;

/** /admin/incidents: incidents, most recent activity first, filtered by status (`?status=open`). */
export default function IncidentsPage() {
  const location = useLocation();
  const base = appBase.pathname;
  // Events open and join incidents at any time: opening the page always asks.
  useState(() => invalidateQueries('incidents:'));
  const wanted = location.query['status'];
  const status = INCIDENT_STATUSES.find((s) => s === wanted);
  const list = usePagedList({ prefix: 'incidents:', variant: status ?? 'all', perPage: INCIDENTS_PER_PAGE, load: (range) => opsApi.listIncidents(status, range) });
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
      <ListTable
        id="incident-list"
        title={status === undefined ? 'All incidents' : `${INCIDENT_STATUS_TEXT[status]} incidents`}
        noun="incidents"
        query={list.query}
        emptyText="No incident."
        tableClass="incidents"
        columns={['Title', 'Status', 'Severity', 'Routes', 'Upstreams', 'Last event']}
      >
        {(items) =>
          items.map((incident) => (
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
          ))
        }
      </ListTable>
      <PaginationNav {...list.pages} />
    </main>
  );
}
