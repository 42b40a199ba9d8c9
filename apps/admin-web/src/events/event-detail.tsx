import type { GatewayEvent } from '../api/api-types';
import { confidenceOf, detailParts, routeOf, severityOf, summaryOf } from './event-fields';

/** One event in full: summary, confidence, and its data and context as JSON. */
export function EventDetail({ event }: { event: GatewayEvent }) {
  const { data, context } = detailParts(event);
  const confidence = confidenceOf(event);
  return (
    <section class="event-detail" aria-label={`Detail of ${event.type}`}>
      <dl class="fields">
        <dt>Id</dt>
        <dd>
          <code>{event.id}</code>
        </dd>
        <dt>Type</dt>
        <dd>{event.type}</dd>
        <dt>Raised</dt>
        <dd>
          <time dateTime={event.createdAt}>{new Date(event.createdAt).toLocaleString()}</time>
        </dd>
        <dt>Severity</dt>
        <dd>{severityOf(event) ?? 'none (not a detector event)'}</dd>
        <dt>Route</dt>
        <dd>{routeOf(event) ?? '—'}</dd>
        <dt>Summary</dt>
        <dd>{summaryOf(event) || '—'}</dd>
        <dt>Confidence</dt>
        <dd>{confidence === undefined ? '—' : `${confidence.toFixed(4)} (0 to 1)`}</dd>
      </dl>
      <h3>Data</h3>
      <pre class="definition">{JSON.stringify(data, null, 2)}</pre>
      {context !== undefined && (
        <>
          <h3>Context</h3>
          <pre class="definition">{JSON.stringify(context, null, 2)}</pre>
        </>
      )}
    </section>
  );
}
