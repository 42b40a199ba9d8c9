import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PROXY_DEFAULTS, type ProxySettings } from '@gateway/route-model';
import type { CompiledRoute } from '../../engine/compiled-route';
import { Exchange } from '../../engine/exchange';
import type { PolicyEnvironment } from '../../engine/policy';
import { ServiceRegistry } from '../../engine/service-registry';
import { SPAN_EXPORT, type FinishedSpan, type SpanExport } from './span-export';
import { unmatchedTracingPolicy } from './unmatched-tracing.policy';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';

function environment(enabled: boolean, spans?: SpanExport): PolicyEnvironment {
  const settings: ProxySettings = { ...PROXY_DEFAULTS, trustedProxies: [], tracing: { ...PROXY_DEFAULTS.tracing, enabled, samplingRatio: 1 } };
  const provided = new ServiceRegistry();
  if (spans !== undefined) provided.provide(SPAN_EXPORT, spans);
  return { settings, services: { provided } } as unknown as PolicyEnvironment;
}

function exchange(method: string, status: number, headers: Record<string, string> = {}): Exchange {
  const req = { headers, socket: {} } as unknown as IncomingMessage;
  const done = new Exchange(req, {} as ServerResponse, method, '/no/such/4711', '?q=1', '127.0.0.1', 0);
  done.status = status;
  return done;
}

test('tracing off: not compiled into the gateway pipeline, so requests no route takes cost nothing', () => {
  assert.equal(unmatchedTracingPolicy.create(undefined, environment(false)), null);
  assert.equal(unmatchedTracingPolicy.scope, 'gateway');
});

test("a request no route took gets the traceparent rules and a '{method} unmatched' span; matched and local ones are left alone", () => {
  const recorded: FinishedSpan[] = [];
  const policy = unmatchedTracingPolicy.create(undefined, environment(true, { record: (span) => recorded.push(span), close: async () => undefined }));
  assert.ok(policy?.onComplete);

  const continued = exchange('DELETE', 404, { traceparent: `00-${TRACE}-${PARENT}-01` });
  policy.onComplete(continued);
  assert.equal(continued.trace?.traceId, TRACE);
  assert.equal(continued.trace?.parentSpanId, PARENT);
  assert.equal(recorded.length, 1);
  assert.equal(recorded[0]?.name, 'DELETE unmatched');
  assert.equal(recorded[0]?.attributes['http.response.status_code'], 404);
  assert.equal(recorded[0]?.attributes['url.path'], '/no/such/4711');
  assert.equal(recorded[0]?.attributes['http.route'], undefined);
  assert.equal(recorded[0]?.error, undefined, 'a 4xx is no server error');

  const odd = exchange('PURGE', 503);
  policy.onComplete(odd);
  assert.equal(recorded[1]?.name, 'HTTP unmatched', 'a method outside RFC 9110 never names the span');
  assert.equal(recorded[1]?.attributes['http.request.method'], '_OTHER');
  assert.equal(recorded[1]?.attributes['http.request.method_original'], 'PURGE');
  assert.equal(recorded[1]?.error, '503');
  assert.equal(recorded[1]?.trace.parentSpanId, '', 'no traceparent: a trace started here');

  const unsampled = exchange('GET', 404, { traceparent: `00-${TRACE}-${PARENT}-00` });
  policy.onComplete(unsampled);
  assert.equal(unsampled.trace?.sampled, false);
  assert.equal(recorded.length, 2, "the caller's unsampled flag is honoured");

  const matched = exchange('GET', 200);
  matched.route = {} as CompiledRoute;
  const local = exchange('GET', 200);
  local.local = true;
  policy.onComplete(matched);
  policy.onComplete(local);
  assert.equal(matched.trace, undefined, "the route's own tracing policy traced it");
  assert.equal(local.trace, undefined);
  assert.equal(recorded.length, 2);
});
