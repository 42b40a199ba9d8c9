import type { Exchange } from '../../engine/exchange';
import type { PolicyFactory } from '../../engine/policy';
import { rootTraceparentsFor, type RootTraceparents } from './root-traceparents';
import { finishSpan, requestAttributes, spanNamesOf } from './server-span';
import { SPAN_EXPORT, type SpanExport } from './span-export';
import { gatewayHop } from './trace-context';

/** Stands for `http.route` in the span name of a request no route took: one name per method, never the raw path. */
export const UNMATCHED_SPAN_ROUTE = 'unmatched';
const unmatchedSpanName = spanNamesOf(UNMATCHED_SPAN_ROUTE);

/**
 * `tracing-unmatched` (docs/tracing.md): the requests no route takes — a 404, a 503 before the
 * first route table, a 400 for a malformed target, a 417 — are traced too, with the same
 * traceparent rules as matched ones (the caller's trace continued, or one started at
 * `samplingRatio`): the access log gets their ids and, sampled, they become `{method} unmatched`
 * spans. Gateway scope, since no route pipeline runs for them; only the complete phase, since
 * nothing goes upstream: the hop is worked out when the answer is over, and a matched request
 * pays one comparison (its route's `tracing` policy did the work). Off, not compiled: no cost.
 * The gateway pipeline is compiled at start, so a reload does not turn this on or off.
 */
export const unmatchedTracingPolicy: PolicyFactory = {
  key: 'tracing-unmatched',
  scope: 'gateway',
  // Before the access log (1010) in the complete phase: its line carries the trace ids.
  order: 30,
  create: (_route, env) => {
    const settings = env.settings.tracing;
    if (settings === undefined || !settings.enabled) return null;
    const roots = rootTraceparentsFor(settings.samplingRatio);
    const spans = env.services.provided.find(SPAN_EXPORT);
    return {
      onComplete(exchange) {
        if (exchange.route !== undefined || exchange.local) return;
        traceUnmatched(exchange, roots, spans);
      },
    };
  },
};

function traceUnmatched(exchange: Exchange, roots: RootTraceparents, spans: SpanExport | undefined): void {
  const headers = exchange.req.headers;
  const trace = gatewayHop(headers.traceparent, headers.tracestate, roots);
  exchange.trace = trace;
  if (spans === undefined || !trace.sampled) return;
  finishSpan(spans, exchange, trace, unmatchedSpanName(exchange.method), requestAttributes(exchange));
}
