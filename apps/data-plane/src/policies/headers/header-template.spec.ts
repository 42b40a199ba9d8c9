import { test } from 'node:test';
import assert from 'node:assert/strict';
import { normalizeRoute } from '@gateway/route-model';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { generateCorrelationId, isAcceptableCorrelationId } from '../../engine/correlation-id';
import { Exchange } from '../../engine/exchange';
import { socketClientIp } from '../../engine/upstream-request-headers';
import type { CompiledRoute } from '../../engine/compiled-route';
import { compileTemplate, renderTemplate, safe, type CompiledTemplate } from './header-template';

test('a value is compiled once into literal parts and variable slots; a plain value stays a string', () => {
  assert.equal(compileTemplate('plain'), 'plain');
  const compiled = compileTemplate('a ${method} b ${route}${route} $x ${');
  assert.equal(typeof compiled, 'object');
  const parts = (compiled as { readonly parts: readonly unknown[] }).parts;
  assert.deepEqual(parts.map((p) => typeof p), ['string', 'number', 'string', 'number', 'number', 'string']);
  assert.deepEqual(parts.filter((p) => typeof p === 'string'), ['a ', ' b ', ' $x ${']);
});

test('variable output keeps only visible ASCII, space and tab: CR, LF, NUL and non-Latin text are dropped', () => {
  assert.equal(safe('ok value\t1'), 'ok value\t1');
  assert.equal(safe('a\r\nSet-Cookie: x=1'), 'aSet-Cookie: x=1');
  assert.equal(safe('\u0000\u2028é'), '');
});

test('safe keeps exactly the characters the rule allows, for every code up to U+02FF and beyond the BMP', () => {
  const allowed = /^[\t\x20-\x7e]$/;
  for (let code = 0; code <= 0x2ff; code += 1) {
    const char = String.fromCharCode(code);
    // Alone, and between clean text: the verdict must not depend on where the character sits.
    assert.equal(safe(char), allowed.test(char) ? char : '', `U+${code.toString(16)}`);
    assert.equal(safe(`a${char}b`), allowed.test(char) ? `a${char}b` : 'ab', `U+${code.toString(16)} inside`);
  }
  assert.equal(safe('x\u{1f600}y'), 'xy');
  assert.equal(safe(''), '');
});

test('the route model refuses CR/LF and unknown variables in header values with the field', () => {
  const bad = normalizeRoute({
    path: '/a',
    upstream: 'http://127.0.0.1:1',
    headers: { request: { set: { 'X-A': 'v\r\nX-Injected: 1' } }, response: { 'X-B': '${secret}' } },
    transform: { request: { headers: { add: { 'X-C': '${requestId' } } } },
  });
  assert.equal(bad.ok, false);
  const fields = bad.ok ? [] : bad.errors.map((e) => `${e.field}: ${e.message}`);
  assert.ok(fields.some((f) => f.startsWith('headers.request.set.X-A:') && /CR, LF/.test(f)), fields.join('\n'));
  assert.ok(fields.some((f) => f.startsWith('headers.response.X-B:') && /unknown variable '\$\{secret\}'/.test(f)), fields.join('\n'));
  assert.ok(fields.some((f) => f.startsWith('transform.request.headers.add.X-C:') && /unknown variable/.test(f)), fields.join('\n'));
});

test('${requestId} and ${clientIp} are rendered unscanned because both are safe by their own rules', () => {
  // Every character decision 17's rule lets a client's id carry is one safe() keeps: the render
  // skips the scan only while this holds (a wider rule makes this test fail, not a header split).
  for (let code = 0; code <= 0x2ff; code += 1) {
    const char = String.fromCharCode(code);
    if (isAcceptableCorrelationId(`a${char}b`)) assert.equal(safe(char), char, `U+${code.toString(16)} accepted but unsafe`);
  }
  assert.equal(isAcceptableCorrelationId('a\r\nb'), false);
  for (let i = 0; i < 100; i += 1) {
    const minted = generateCorrelationId();
    assert.equal(safe(minted), minted);
  }
  for (const address of ['127.0.0.1', '::1', '::ffff:10.0.0.7', 'fe80::1%2', undefined]) {
    const ip = socketClientIp(address);
    assert.equal(safe(ip), ip, String(address));
  }
  const exchange = new Exchange({} as IncomingMessage, {} as ServerResponse, 'GET', '/a', '', socketClientIp('::ffff:10.0.0.7'), 0);
  exchange.correlationId = 'client-id_1.2:3@x/y+z=';
  assert.equal(renderTemplate(compileTemplate('${requestId} from ${clientIp}'), exchange), 'client-id_1.2:3@x/y+z= from 10.0.0.7');
});

test('a template whose only variable is ${route} renders what the per-request render gives, for every route in turn', () => {
  // The reference: each variable replaced by its value, as the parts render always did.
  const reference = (value: string, routeId: string, method: string, correlationId: string): string =>
    value.replace(/\$\{route\}/g, routeId).replace(/\$\{method\}/g, method).replace(/\$\{requestId\}/g, correlationId);
  const templates = ['gateway ${route}', '${route}', '${route}-${route} x', 'a ${method} ${route}', '${requestId} ${route}'];
  const compiled = templates.map((value) => compileTemplate(value));
  // The same compiled template is shared by routes with the same rules, so the route changes under it.
  const turns: Array<[string | undefined, string, string]> = [
    ['r1', 'GET', 'id-1'], ['r1', 'POST', 'id-2'], ['r2', 'GET', 'id-3'], ['r1', 'PUT', 'id-4'],
    [undefined, 'GET', 'id-5'], ['r1', 'DELETE', 'id-6'], ['r-2', 'GET', 'id-7'], ['r-2', 'PATCH', 'id-8'],
  ];
  for (const [routeId, method, correlationId] of turns) {
    const exchange = new Exchange({} as IncomingMessage, {} as ServerResponse, method, '/a', '', '10.0.0.7', 0);
    exchange.correlationId = correlationId;
    if (routeId !== undefined) exchange.route = { id: routeId } as CompiledRoute;
    templates.forEach((value, i) => {
      assert.equal(renderTemplate(compiled[i] as CompiledTemplate, exchange), reference(value, routeId ?? '', method, correlationId), `${value} on ${routeId}`);
    });
  }
});
