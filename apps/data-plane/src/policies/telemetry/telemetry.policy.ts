import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { latencyBucket as bucketOf } from '@gateway/events/data-plane';
import type { ProxyConfig } from '@gateway/route-model';
import type { PolicyEnvironment, PolicyFactory } from '../../engine/policy';
import { eachInChunks } from '../../engine/time-slices';
import { outcomeIndex } from './request-outcome';
import { TELEMETRY_TALLIES } from './telemetry-services';
import { upstreamLabel } from './upstream-label';

// Read once, not through the getter TypeScript's CommonJS re-export makes (see upstream-request-headers.ts).
const latencyBucket: typeof bucketOf = bucketOf;

const COUNTED_READ = Symbol('telemetry.countedRead');
const COUNTED_WRITTEN = Symbol('telemetry.countedWritten');
/**
 * The connection's byte counters as of its previous request's end (one pair of fields per
 * connection). `_bytesDispatched` is what node's own `bytesWritten` getter starts from: the getter
 * also sums the still-buffered chunks by copying the write buffer, an allocation per request; the
 * buffered bytes are dispatched later and so counted with the next request (the totals agree).
 */
type CountedSocket = Socket & { [COUNTED_READ]?: number; [COUNTED_WRITTEN]?: number; _bytesDispatched?: number };

/**
 * `telemetry` (issue 12): counts every request of a route into its and its upstream's tallies for
 * the current one-second window (docs/telemetry.md). Present only when the data plane publishes
 * telemetry (TELEMETRY_TALLIES provided). The tallies are resolved here, when the route compiles, so a
 * request costs counter increments and a sketch bucket: no lookup, no allocation, no string.
 */
export const telemetryPolicy: PolicyFactory = {
  key: 'telemetry',
  scope: 'route',
  // Early in the complete phase, with the request metrics: nothing later changes the counts.
  order: 990,
  create: (route, env) => {
    const registry = env.services.provided.find(TELEMETRY_TALLIES);
    if (route === undefined || registry === undefined) return null;
    const { route: routeTally, upstream: upstreamTally } = registry.forCompiledRoute(route.id, upstreamLabel(route));
    return {
      onComplete(exchange) {
        const socket = exchange.req.socket as CountedSocket;
        // Each request is charged the connection's bytes since the previous request on it ended:
        // its head, body and response, and the totals add up to the connection's on keep-alive too.
        const read = socket.bytesRead;
        const written = socket._bytesDispatched ?? 0;
        const bytesIn = read - (socket[COUNTED_READ] ?? 0);
        const bytesOut = written - (socket[COUNTED_WRITTEN] ?? 0);
        socket[COUNTED_READ] = read;
        socket[COUNTED_WRITTEN] = written;
        const retries = exchange.attempts > 1 ? exchange.attempts - 1 : 0;
        const outcome = outcomeIndex(exchange);
        const latencyMs = performance.now() - exchange.startedAt;
        const bucket = latencyBucket(latencyMs);
        routeTally.record(exchange.status, outcome, retries, bytesIn, bytesOut, latencyMs, bucket);
        upstreamTally.record(exchange.status, outcome, retries, bytesIn, bytesOut, latencyMs, bucket);
      },
    };
  },
  retain: retainAll,
  // A route's tally goes with its id; an upstream's, shared by the routes to it, with the last compiled route counting there.
  *release(left, _config, env) {
    const tallies = env.services.provided.find(TELEMETRY_TALLIES);
    if (tallies === undefined) return;
    yield* eachInChunks(left.gone, (gone) => {
      const current = left.current(gone.id);
      const label = upstreamLabel(gone);
      if (current === undefined || upstreamLabel(current) !== label) tallies.leave(gone.id, label, current === undefined);
    });
  },
};

/** Keeps the tallies of the configuration's routes and upstreams, a walk over every route (see PolicyFactory.retain). */
function* retainAll(config: ProxyConfig, env: PolicyEnvironment): Generator<void, void, void> {
  const tallies = env.services.provided.find(TELEMETRY_TALLIES);
  if (tallies === undefined) return;
  const routeIds = new Set<string>();
  const upstreams = new Set<string>();
  yield* eachInChunks(config.routes, (route) => {
    routeIds.add(route.id);
    upstreams.add(upstreamLabel(route));
  });
  yield* tallies.retainSteps(routeIds, upstreams);
}
