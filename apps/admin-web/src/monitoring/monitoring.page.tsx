import { appBase } from '../api/api-client';
import { useFocusHeading } from '../layout/use-focus-heading';
import { lastHour, lastQuarterHour } from './chart-data';
import { formatAge, formatMs, formatPercent, formatRate } from './format';
import { liveTotals, recentSeconds, streamStatus, upstreamStates, useLiveTelemetry, type StreamStatus } from './live-telemetry';
import { useSeriesHistory } from './series-history';
import { BreakerBadge, HealthBadge } from './state-badge';
import { TimeChart } from './time-chart';
import { clusterWindow, routeWindows } from './traffic-window';
import { useDataPlanes } from './use-data-planes';
import { DataTable, type Column } from '../layout/data-table';

/** Column headings of the page's three tables. */
const ROUTE_TRAFFIC_COLUMNS: readonly Column[] = ['Route', { label: 'Requests', numeric: true }, { label: 'Req/s', numeric: true }, { label: '4xx', numeric: true }, { label: '5xx', numeric: true }, { label: 'p99 (worst second)', numeric: true }, 'Breaker', 'Health', { label: 'Rate-limit hits', numeric: true }, { label: 'Cache hit ratio', numeric: true }];
const DATA_PLANE_COLUMNS: readonly Column[] = ['Instance', 'Address', 'Version', { label: 'Config revision', numeric: true }, 'Last report', 'Status'];
const UPSTREAM_COLUMNS: readonly Column[] = ['Upstream', 'Health', 'Breaker', 'Last traffic'];

/** A data plane is stale after 3 seconds without a window (TELEMETRY_STALE_AFTER_WINDOWS). */
const STALE_AFTER_MS = 3_000;
/** The requests-a-second figure averages this many of the latest seconds. */
const RATE_SECONDS = 10;

const STATUS_TEXT: Record<StreamStatus, string> = {
  idle: 'Not connected',
  connecting: 'Connecting to the live stream…',
  live: 'Live',
  reconnecting: 'Reconnecting to the live stream…',
  ended: 'The live stream ended',
};

/** /admin/monitoring: the cluster live (the telemetry stream), with 15-minute and hour history (the series API). */
export default function MonitoringPage() {
  useLiveTelemetry();
  const heading = useFocusHeading();
  const quarterHistory = useSeriesHistory('1s');
  const hourHistory = useSeriesHistory('1m');
  const { planes, error: planesError } = useDataPlanes();
  const frames = recentSeconds.value;
  const now = Date.now();
  const minute = clusterWindow(frames);
  const rate = clusterWindow(frames.slice(-RATE_SECONDS));
  const latest = [...frames].reverse().find((f) => f.total.requests > 0);
  const routes = routeWindows(frames);
  const quarter = lastQuarterHour(quarterHistory?.history, liveTotals.value, now);
  const hour = lastHour(hourHistory?.history, now);
  const upstreams = [...upstreamStates.value].sort(([a], [b]) => (a < b ? -1 : 1));
  const routesPath = `${appBase.pathname}routes`;

  return (
    <main>
      <h1 ref={heading} tabIndex={-1}>
        Monitoring
      </h1>
      <p class="live-status">
        {STATUS_TEXT[streamStatus.value]}
        {frames.length > 0 && ` · ${frames.at(-1)?.reporting ?? 0} data plane(s) reporting`}
      </p>
      <dl class="tiles" aria-label="The cluster now">
        <div>
          <dt>Requests a second (last {RATE_SECONDS} s)</dt>
          <dd data-testid="rps">{formatRate(rate.rps)}</dd>
        </div>
        <div>
          <dt>Requests (last minute)</dt>
          <dd data-testid="requests-minute">{minute.requests}</dd>
        </div>
        <div>
          <dt>4xx errors (last minute)</dt>
          <dd data-testid="client-errors">{formatPercent(minute.clientErrorPercent)}</dd>
        </div>
        <div>
          <dt>5xx errors (last minute)</dt>
          <dd data-testid="server-errors">{formatPercent(minute.serverErrorPercent)}</dd>
        </div>
        <div>
          <dt>Latency p50 / p95 / p99 (latest second with traffic)</dt>
          <dd>{latest === undefined ? '—' : `${formatMs(latest.total.latency.p50)} / ${formatMs(latest.total.latency.p95)} / ${formatMs(latest.total.latency.p99)}`}</dd>
        </div>
      </dl>

      <h2>Last 15 minutes</h2>
      {quarterHistory?.error !== undefined && <p class="error" role="alert">The history could not be loaded: {quarterHistory.error}</p>}
      {quarterHistory === undefined && <p class="notice">Loading the history…</p>}
      <div class="charts">
        <TimeChart label="Requests a second, last 15 minutes" lines={['All', '4xx', '5xx']} times={quarter.times} values={quarter.traffic} unit="req/s" />
        <TimeChart label="Latency, last 15 minutes" lines={['p50', 'p95', 'p99']} times={quarter.times} values={quarter.latency} unit="ms" />
      </div>
      <h2>Last hour</h2>
      {hourHistory?.error !== undefined && <p class="error" role="alert">The history could not be loaded: {hourHistory.error}</p>}
      {hourHistory === undefined && <p class="notice">Loading the history…</p>}
      <div class="charts">
        {/* The series API keeps no 4xx count: the hour shows all requests and 5xx. */}
        <TimeChart label="Requests a second by minute, last hour" lines={['All', '5xx']} times={hour.times} values={[hour.traffic[0] ?? [], hour.traffic[2] ?? []]} unit="req/s" colors={[0, 2]} />
        <TimeChart label="Latency by minute, last hour" lines={['p50', 'p95', 'p99']} times={hour.times} values={hour.latency} unit="ms" />
      </div>

      <h2 id="route-traffic">Routes (last minute)</h2>
      {routes.length === 0 ? (
        <p>No route had traffic in the last minute.</p>
      ) : (
        <DataTable labelledBy="route-traffic" testId="route-traffic" columns={ROUTE_TRAFFIC_COLUMNS}>
          {routes.map((row) => (
            <tr key={row.routeId} data-route={row.routeId}>
              <th scope="row">
                <a href={`${routesPath}/${encodeURIComponent(row.routeId)}`}>{row.routeId}</a>
              </th>
              <td class="number">{row.requests}</td>
              <td class="number">{formatRate(row.rps)}</td>
              <td class="number">{formatPercent(row.clientErrorPercent)}</td>
              <td class="number">{formatPercent(row.serverErrorPercent)}</td>
              <td class="number">{formatMs(row.worstP99)}</td>
              <td>
                <BreakerBadge breaker={row.breaker} />
              </td>
              <td>
                <HealthBadge health={row.health} />
              </td>
              <td class="number">{row.rateLimitHits}</td>
              <td class="number">{formatPercent(row.cacheHitRatio * 100)}</td>
            </tr>
          ))}
        </DataTable>
      )}

      <h2 id="data-planes">Data planes</h2>
      {planesError !== undefined && <p class="error" role="alert">The data planes could not be loaded: {planesError}</p>}
      {planes !== undefined && planes.length === 0 && <p>No data plane has reported yet.</p>}
      {planes !== undefined && planes.length > 0 && (
        <DataTable labelledBy="data-planes" testId="data-planes" columns={DATA_PLANE_COLUMNS}>
          {planes.map((plane) => {
            const reported = Date.parse(plane.lastReport);
            const status = now - reported > STALE_AFTER_MS ? 'stale' : plane.status;
            return (
              <tr key={plane.instanceId}>
                <th scope="row">{plane.instanceId}</th>
                <td>{plane.address}</td>
                <td>{plane.version}</td>
                <td class="number">{plane.configRevision}</td>
                <td>
                  <time dateTime={plane.lastReport}>{formatAge(reported, now)}</time>
                </td>
                <td>
                  <span class={`badge badge-${status}`}>{status === 'live' ? 'Live' : 'Stale'}</span>
                </td>
              </tr>
            );
          })}
        </DataTable>
      )}

      <h2 id="upstreams">Upstreams</h2>
      {upstreams.length === 0 ? (
        <p>No upstream has reported since this page opened the live stream.</p>
      ) : (
        <DataTable labelledBy="upstreams" testId="upstreams" columns={UPSTREAM_COLUMNS}>
          {upstreams.map(([name, state]) => (
            <tr key={name}>
              <th scope="row" class="upstream">
                {name}
              </th>
              <td>
                <HealthBadge health={state.health} />
              </td>
              <td>
                <BreakerBadge breaker={state.breaker} />
              </td>
              <td>{formatAge(state.lastSeen, now)}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </main>
  );
}
