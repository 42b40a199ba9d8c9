import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api/api-client';
import { describeError } from '../../api/api-error';
import { ErrorAlert } from '../../layout/error-alert';
import { useQuery } from '../../api/query-cache';
import type { BreakerStatus, Route } from '../../api/api-types';

const when = (iso: string | null | undefined): string => (iso === null || iso === undefined ? 'never' : new Date(iso).toLocaleString());

/**
 * Health as the data planes report it: status, last check and its latency. `live` is the indicator
 * of the telemetry stream: when it changes, the details are read again (one request per change).
 */
export function HealthPanel({ route, live }: { route: Route; live: string | undefined }) {
  const health = useQuery(`route-health:${route.id}`, () => api.routeHealth(route.id));
  const data = health.data;
  useEffect(() => {
    if (live !== undefined && data !== undefined && live !== data.status) health.reload();
  }, [live]);
  return (
    <section aria-labelledby="health-heading">
      <h2 id="health-heading">Health</h2>
      {health.error !== undefined && <p class="error">{health.error.message}</p>}
      {data !== undefined && (
        <dl class="fields">
          <dt>Status</dt>
          <dd data-testid="health-status">{data.status ?? 'No active health check'}</dd>
          <dt>Last check</dt>
          <dd>{when(data.check?.lastCheck)}</dd>
          <dt>Latency</dt>
          <dd>{data.check?.latencyMs === null || data.check?.latencyMs === undefined ? '—' : `${data.check.latencyMs} ms`}</dd>
          {data.check?.lastError !== null && data.check?.lastError !== undefined && (
            <>
              <dt>Last error</dt>
              <dd>{data.check.lastError}</dd>
            </>
          )}
        </dl>
      )}
      <button type="button" class="secondary" onClick={health.reload} disabled={health.loading}>
        Refresh health
      </button>
    </section>
  );
}

/**
 * The breaker's state over the data planes, with the manual Trip and Reset of spec 3.1. `live` is
 * the state of the telemetry stream: when it differs from the one shown, the state is read again.
 */
export function BreakerPanel({ route, live }: { route: Route; live: string | undefined }) {
  const breaker = useQuery(`route-breaker:${route.id}`, () => api.breaker(route.id));
  const [answer, setAnswer] = useState<BreakerStatus | undefined>(undefined);
  const [message, setMessage] = useState<string | undefined>(undefined);
  const data = answer ?? breaker.data;
  useEffect(() => {
    if (live !== undefined && data !== undefined && live !== data.state) {
      setAnswer(undefined);
      breaker.reload();
    }
  }, [live]);
  async function act(action: 'trip' | 'reset'): Promise<void> {
    setMessage(undefined);
    try {
      setAnswer(await api.breaker(route.id, action));
    } catch (error) {
      setMessage(describeError(error));
    }
  }
  return (
    <section aria-labelledby="breaker-heading">
      <h2 id="breaker-heading">Circuit breaker</h2>
      {breaker.error !== undefined && <p class="error">{breaker.error.message}</p>}
      {data !== undefined && (
        <dl class="fields">
          <dt>State</dt>
          <dd data-testid="breaker-state" aria-live="polite">
            {data.state ?? (data.enabled ? 'Unknown' : 'No breaker on any data plane')}
          </dd>
          <dt>Failures / successes</dt>
          <dd>
            {data.failures} / {data.successes}
          </dd>
          <dt>Last failure</dt>
          <dd>{when(data.lastFailureTime)}</dd>
        </dl>
      )}
      <button type="button" class="danger" onClick={() => void act('trip')}>
        Trip breaker
      </button>{' '}
      <button type="button" class="secondary" onClick={() => void act('reset')}>
        Reset breaker
      </button>
      <ErrorAlert message={message} />
    </section>
  );
}

/** Rate-limit hits and rejections summed over the data planes. */
export function RateLimitPanel({ route }: { route: Route }) {
  const usage = useQuery(`route-rate-limit:${route.id}`, () => api.rateLimitUsage(route.id));
  const data = usage.data;
  return (
    <section aria-labelledby="rate-limit-heading">
      <h2 id="rate-limit-heading">Rate limit</h2>
      {usage.error !== undefined && <p class="error">{usage.error.message}</p>}
      {data !== undefined && !data.enabled && <p>No rate limit on this route.</p>}
      {data?.enabled === true && (
        <dl class="fields">
          <dt>Requests counted</dt>
          <dd>{data.usage?.hits ?? 0}</dd>
          <dt>Rejected (429)</dt>
          <dd>{data.usage?.rejections ?? 0}</dd>
          <dt>Busiest keys</dt>
          <dd>{(data.usage?.busiestKeys ?? []).map((key) => `${key.key} (${key.hits})`).join(', ') || '—'}</dd>
        </dl>
      )}
      <button type="button" class="secondary" onClick={usage.reload} disabled={usage.loading}>
        Refresh usage
      </button>
    </section>
  );
}
