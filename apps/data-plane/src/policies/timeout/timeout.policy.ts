import { performance } from 'node:perf_hooks';
import type { DeadlineWheel } from '../../engine/deadline-wheel';
import type { Exchange } from '../../engine/exchange';
import { isEventStream } from '../../engine/open-streams';
import type { PolicyFactory } from '../../engine/policy';

function cutOnTimeout(exchange: Exchange): void {
  exchange.upstream?.cancel('UPSTREAM_TIMEOUT');
}

/**
 * When a deadline comes with the response head already in and the body streaming (an event
 * stream; any response once the route sets `timeout.idle`), only a gap is cut: bytes read since
 * the last look earn another `idleMs`, none means the upstream went silent. No per-chunk work: a
 * gap is cut between idleMs and twice idleMs after the last byte. Other responses keep the whole
 * `timeout.request` as their bound, so an upstream that never stops sending cannot hold a client.
 */
function idleCheck(deadlines: DeadlineWheel<Exchange>, idleMs: number, everyResponse: boolean): (exchange: Exchange) => void {
  const check = (exchange: Exchange): void => {
    const response = exchange.upstreamResponse;
    const read = response?.bytesRead;
    if (read !== undefined && read !== exchange.upstreamBytesSeen && (everyResponse || isEventStream(response?.header('content-type')))) {
      exchange.upstreamBytesSeen = read;
      deadlines.schedule(exchange, idleMs, check);
      return;
    }
    cutOnTimeout(exchange);
  };
  return check;
}

/**
 * `timeout.request` bounds one upstream attempt from the moment it is sent until its response
 * head arrives (504); after that, for event streams and, when the route sets it, every response,
 * `timeout.idle` (default the same value) bounds each silence of the body (a cut connection), so a
 * healthy event stream outlives the request timeout; other bodies must end within it.
 * `timeout.connect` (a new upstream connection, TLS included) is the upstream client's own
 * timeout, set per route on its target (upstream-target.ts). Innermost wrapper, so retries
 * get a fresh deadline per attempt, bounded by what is left of `timeout.request` since the request
 * arrived. Deadlines live in the shared DeadlineWheel (no timer per
 * request) and fire within DEADLINE_TICK_MS of their time; the exchange's completion cancels it.
 */
export const timeoutPolicy: PolicyFactory = {
  key: 'timeout',
  scope: 'route',
  configures: 'timeout',
  order: 900,
  shareKey: (route) => `${route.timeout.request}/${route.timeout.idle ?? ''}`,
  create: (route, env) => {
    if (route === undefined) return null;
    const requestMs = route.timeout.request;
    const deadlines = env.services.deadlines;
    const onDeadline = idleCheck(deadlines, route.timeout.idle ?? requestMs, route.timeout.idle !== undefined);
    return {
      wrapUpstream: (next) => (exchange, done) => {
        // Scheduling again replaces the previous attempt's deadline. A retried attempt gets what is
        // left of the route's request timeout (decision 16: every attempt within it).
        const ms = exchange.attempts === 0 ? requestMs : Math.max(1, exchange.startedAt + requestMs - performance.now());
        // A retried attempt's deadline must not count the previous attempt's response as progress.
        exchange.upstreamResponse = undefined;
        exchange.upstreamBytesSeen = -1;
        deadlines.schedule(exchange, ms, onDeadline);
        next(exchange, done);
      },
      onComplete: (exchange) => deadlines.cancel(exchange),
    };
  },
};
