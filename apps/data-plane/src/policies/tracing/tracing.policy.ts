import type { Exchange } from '../../engine/exchange';
import type { PolicyFactory } from '../../engine/policy';
import { upstreamLabel } from '../telemetry/upstream-label';
import { SPAN_EXPORT, SPANS_DROPPED, type SpanExport } from './span-export';
import { rootTraceparentsFor } from './root-traceparents';
import { finishSpan, requestAttributes, spanNamesOf, type SpanNames } from './server-span';
import { gatewayHop } from './trace-context';

/**
 * `tracing` (issue 18, docs/tracing.md): with `proxy.tracing.enabled`, every proxied request
 * continues the caller's W3C trace (or starts one) with a new span id for the gateway hop, sent
 * upstream in traceparent (and the caller's tracestate, bounded). With OTLP export on, sampled
 * requests become server spans when they complete. Off, the policy is not compiled into any
 * pipeline and a client's traceparent passes through untouched like any end-to-end header.
 */
export const tracingPolicy: PolicyFactory = {
  key: 'tracing',
  scope: 'route',
  // First of the route's request hooks: a request answered by an earlier policy (a 403, a 429) is traced too.
  order: 30,
  metrics: [SPANS_DROPPED],
  create: (route, env) => {
    const settings = env.settings.tracing;
    if (route === undefined || settings === undefined || !settings.enabled) return null;
    const roots = rootTraceparentsFor(settings.samplingRatio);
    const spans = env.services.provided.find(SPAN_EXPORT);
    const fixed: RouteAttributes = { route: route.path, routeId: route.id, upstream: upstreamLabel(route), names: spanNamesOf(route.path) };
    return {
      onRequest(exchange) {
        const headers = exchange.req.headers;
        const hop = gatewayHop(headers.traceparent, headers.tracestate, roots);
        exchange.trace = hop;
        const upstream = exchange.upstreamHeaders;
        // A root's is one slice of a flat pool string: the upstream head copies it as it is.
        const traceparent = hop.traceparent;
        upstream.traceparent = traceparent;
        // Built here from validated lowercase hex: the upstream client need not scan it again.
        exchange.trustedUpstreamValue = traceparent;
        if (hop.traceState !== '') upstream.tracestate = hop.traceState;
        // `delete` only when the client sent one: it turns the header object into a slow dictionary.
        else if (upstream.tracestate !== undefined) delete upstream.tracestate;
        return undefined;
      },
      ...(spans === undefined ? {} : { onComplete: (exchange: Exchange) => recordSpan(spans, exchange, fixed) }),
    };
  },
};

/** A route's span names and attributes, resolved when the route compiles. */
interface RouteAttributes {
  readonly route: string;
  readonly routeId: string;
  readonly upstream: string;
  readonly names: SpanNames;
}

function recordSpan(spans: SpanExport, exchange: Exchange, fixed: RouteAttributes): void {
  const trace = exchange.trace;
  if (trace === undefined || !trace.sampled) return;
  const attributes = requestAttributes(exchange);
  attributes['http.route'] = fixed.route;
  attributes['gateway.route.id'] = fixed.routeId;
  attributes['gateway.upstream'] = fixed.upstream;
  finishSpan(spans, exchange, trace, fixed.names(exchange.method), attributes);
}
