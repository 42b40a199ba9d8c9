import { performance } from 'node:perf_hooks';
import type { Exchange, TraceContext } from '../../engine/exchange';
import type { SpanExport } from './span-export';

/** RFC 9110 methods keep their name in `http.request.method`; others are `_OTHER` (HTTP semantic conventions). */
export const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH']);
/** Constant for the process; read once (the getter crosses into C++ on every read). */
const TIME_ORIGIN_MS = performance.timeOrigin;

/**
 * The attributes of every server span, matched route or not: the required and conditionally
 * required ones of the HTTP server span conventions, client.address and the correlation id. Every
 * attribute is copied and encoded per span, so the recommended ones that say little for a gateway
 * hop (user_agent.original, network.protocol.version) are left out (docs/tracing.md). One literal
 * (no spread): built on every sampled request.
 */
export function requestAttributes(exchange: Exchange): Record<string, string | number> {
  const { method } = exchange;
  return {
    'http.request.method': KNOWN_METHODS.has(method) ? method : '_OTHER',
    'url.path': exchange.path,
    'url.scheme': 'encrypted' in exchange.req.socket ? 'https' : 'http',
    'http.response.status_code': exchange.status,
    'client.address': exchange.clientIp,
    'gateway.correlation_id': exchange.correlationId,
  };
}

/** A route's span name by request method. */
export type SpanNames = (method: string) => string;

/**
 * `{method} {route}` for each RFC 9110 method, `HTTP {route}` for any other (its name is
 * unbounded), made when the route compiles: a span takes a flat string instead of concatenating
 * one per span (a rope the encoder would flatten). `join` builds them flat.
 */
export function spanNamesOf(route: string): SpanNames {
  const names = new Map<string, string>();
  for (const method of KNOWN_METHODS) names.set(method, [method, route].join(' '));
  const other = ['HTTP', route].join(' ');
  return (method) => names.get(method) ?? other;
}

/**
 * Completes a sampled request's server span from its attributes (matched route or not): the
 * conditional attributes, the error status, the timing, then the export queue.
 */
export function finishSpan(spans: SpanExport, exchange: Exchange, trace: TraceContext, name: string, attributes: Record<string, string | number>): void {
  const { method, status } = exchange;
  if (!KNOWN_METHODS.has(method)) attributes['http.request.method_original'] = method;
  // Only when retried: most requests make one attempt (none when a policy answered first).
  if (exchange.attempts > 1) attributes['gateway.upstream.attempts'] = exchange.attempts;
  // Server spans: 5xx is an error, 4xx is the client's (HTTP semantic conventions, span status).
  const error = status >= 500 ? (exchange.errorCode ?? String(status)) : undefined;
  if (error !== undefined) attributes['error.type'] = error;
  spans.record({
    name,
    trace,
    startTimeMs: TIME_ORIGIN_MS + exchange.startedAt,
    durationMs: performance.now() - exchange.startedAt,
    attributes,
    error,
  });
}
