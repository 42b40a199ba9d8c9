import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { api, appBase } from '../api/api-client';
import type { GatewayEvent } from '../api/api-types';
import { ErrorAlert } from '../layout/error-alert';
import { PaginationNav } from '../layout/pagination-nav';
import { useFocusHeading } from '../layout/use-focus-heading';
import { usePagedList } from '../layout/use-paged-list';
import { EventDetail } from './event-detail';
import { confidenceOf, filterFromQuery, KNOWN_KINDS, matchesFilter, queryOf, routeOf, SEVERITIES, severityOf, summaryOf, toLocalInput, type EventFilter } from './event-fields';
import { useLiveEvents, type EventStreamStatus } from './live-events';
import { DataTable } from '../layout/data-table';

const EVENTS_PER_PAGE = 20;
const STATUS_TEXT: Record<EventStreamStatus, string> = {
  connecting: 'Connecting to the event stream…',
  live: 'Live: new events appear here as they are raised.',
  reconnecting: 'Reconnecting to the event stream…',
  ended: 'The event stream ended: reload the page to follow new events.',
};

/** /admin/events: stored events with filters and pages, one event's detail, new events live from the stream. */
export default function EventsPage() {
  const location = useLocation();
  const filter = filterFromQuery(location.query);
  const list = usePagedList({ prefix: 'events:', variant: queryOf(filter), perPage: EVENTS_PER_PAGE, load: (range) => api.listEvents({ ...range, ...filter }) });
  const { query: result, page } = list;
  const live = useLiveEvents();
  const heading = useFocusHeading();
  const [openId, setOpenId] = useState<string | undefined>(undefined);

  const listed = result.data?.items ?? [];
  // New events go on top of the first page only: later pages stay as the API answered them.
  const fresh = page === 1 ? live.events.value.filter((e) => matchesFilter(e, filter) && !listed.some((l) => l.id === e.id)) : [];
  const rows = [...fresh, ...listed];
  const total = (result.data?.pagination.total ?? 0) + fresh.length;

  return (
    <main>
      <h1 ref={heading} tabIndex={-1}>
        Events
      </h1>
      <FilterForm filter={filter} onApply={(next) => location.route(`${appBase.pathname}events${queryOf(next)}`)} />
      <p class="live-status" role="status" data-testid="event-stream-status">
        {STATUS_TEXT[live.status.value]}
      </p>
      <ErrorAlert message={result.error === undefined ? undefined : `The events could not be loaded: ${result.error.message}`} />
      {result.loading && <p>Loading events…</p>}
      {result.data !== undefined && (
        <p class="summary">
          {total} {total === 1 ? 'event' : 'events'}
          {Object.keys(filter).length > 0 ? ' matching the filter' : ''}
        </p>
      )}
      {result.data !== undefined && rows.length === 0 && <p>No event yet{Object.keys(filter).length > 0 ? ' matches the filter' : ''}.</p>}
      {rows.length > 0 && (
        <DataTable label="Events" tableClass="events" columns={['Time', 'Type', 'Severity', 'Route', 'Summary', { label: 'Confidence', numeric: true }, 'Detail']}>
          {rows.map((event) => (
            <EventRow key={event.id} event={event} isNew={fresh.includes(event)} open={openId === event.id} onToggle={() => setOpenId(openId === event.id ? undefined : event.id)} />
          ))}
        </DataTable>
      )}
      <PaginationNav {...list.pages} />
    </main>
  );
}

function EventRow({ event, isNew, open, onToggle }: { event: GatewayEvent; isNew: boolean; open: boolean; onToggle: () => void }) {
  const severity = severityOf(event);
  const confidence = confidenceOf(event);
  const detailId = `event-detail-${event.id}`;
  return (
    <>
      <tr data-event={event.id} data-type={event.type} class={isNew ? 'new-event' : undefined}>
        <td>
          <time dateTime={event.createdAt}>{new Date(event.createdAt).toLocaleString()}</time>
          {isNew && <span class="badge badge-live"> new</span>}
        </td>
        <td>
          <code>{event.type}</code>
        </td>
        <td>{severity === undefined ? '—' : <span class={`badge badge-severity-${severity}`}>{severity}</span>}</td>
        <td>{routeOf(event) ?? '—'}</td>
        <td class="event-summary">{summaryOf(event) || '—'}</td>
        <td class="number">{confidence === undefined ? '—' : confidence.toFixed(3)}</td>
        <td>
          <button type="button" class="secondary" aria-expanded={open} aria-controls={detailId} onClick={onToggle} aria-label={`${open ? 'Hide' : 'Show'} detail of ${event.type} at ${new Date(event.createdAt).toLocaleString()}`}>
            {open ? 'Hide' : 'Show'}
          </button>
        </td>
      </tr>
      {open && (
        <tr id={detailId}>
          <td colSpan={7}>
            <EventDetail event={event} />
          </td>
        </tr>
      )}
    </>
  );
}

function FilterForm({ filter, onApply }: { filter: EventFilter; onApply: (filter: EventFilter) => void }) {
  function submit(event: Event): void {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    const text = (name: string): string => String(data.get(name) ?? '').trim();
    // datetime-local has no zone: the admin's local time, sent as an instant.
    const instant = (name: string): string | undefined => (text(name) === '' ? undefined : new Date(text(name)).toISOString());
    const next: EventFilter = {};
    if (text('type') !== '') next.type = text('type');
    const severity = SEVERITIES.find((s) => s === text('severity'));
    if (severity !== undefined) next.severity = severity;
    if (text('route') !== '') next.route = text('route');
    const from = instant('from');
    const to = instant('to');
    if (from !== undefined) next.from = from;
    if (to !== undefined) next.to = to;
    onApply(next);
  }
  // Keyed by the filter: a new address (a link, back) shows its own values.
  return (
    <form class="filters" key={JSON.stringify(filter)} onSubmit={submit} aria-label="Filter events">
      <span class="field">
        <label for="event-type">Type</label>
        <input id="event-type" name="type" list="event-kinds" defaultValue={filter.type ?? ''} maxLength={100} autoComplete="off" />
        <datalist id="event-kinds">
          {KNOWN_KINDS.map((kind) => (
            <option key={kind} value={kind} />
          ))}
        </datalist>
      </span>
      <span class="field">
        <label for="event-severity">Severity</label>
        <select id="event-severity" name="severity" defaultValue={filter.severity ?? ''}>
          <option value="">Any</option>
          {SEVERITIES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </span>
      <span class="field">
        <label for="event-route">Route</label>
        <input id="event-route" name="route" defaultValue={filter.route ?? ''} maxLength={100} autoComplete="off" />
      </span>
      <span class="field">
        <label for="event-from">From</label>
        <input id="event-from" name="from" type="datetime-local" defaultValue={toLocalInput(filter.from)} />
      </span>
      <span class="field">
        <label for="event-to">To</label>
        <input id="event-to" name="to" type="datetime-local" defaultValue={toLocalInput(filter.to)} />
      </span>
      <button type="submit">Apply</button>
      {Object.keys(filter).length > 0 && <a href={`${appBase.pathname}events`}>Clear filters</a>}
    </form>
  );
}
