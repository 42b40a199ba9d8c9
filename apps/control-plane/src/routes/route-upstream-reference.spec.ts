import { test } from 'node:test';
import assert from 'node:assert/strict';
import { normalizeUpstream, type UpstreamDefinition } from '@gateway/route-model';
import { DomainError } from '../common/domain-error';
import { mergeRoutePatch, parseRouteBody } from './route-input';

function upstream(input: Record<string, unknown>): UpstreamDefinition {
  const result = normalizeUpstream(input);
  assert.ok(result.ok);
  return result.value;
}

const CATALOG = [
  upstream({ name: 'orders', targets: [{ url: 'http://10.0.0.1:8080/v1' }, { url: 'http://10.0.0.2:8080/v1', weight: 300 }] }),
  { ...upstream({ name: 'file-svc', url: 'http://10.0.0.9' }), source: 'file' as const },
];

function refusal(fn: () => unknown): { code: string; fields: Array<{ field: string; message: string }> } {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof DomainError);
    return { code: error.code, fields: error.details?.['fields'] as Array<{ field: string; message: string }> };
  }
  assert.fail('expected a DomainError');
}

test('upstream or target naming a known upstream: upstreamName set, upstream shows the first target', () => {
  for (const body of [{ path: '/o/*', upstream: 'orders' }, { path: '/o/*', target: 'orders' }]) {
    const route = parseRouteBody(body, undefined, CATALOG);
    assert.equal(route.upstreamName, 'orders', JSON.stringify(body));
    assert.equal(route.upstream, 'http://10.0.0.1:8080/v1');
  }
  assert.equal(parseRouteBody({ path: '/f/*', upstream: 'file-svc' }, undefined, CATALOG).upstreamName, 'file-svc');
});

test('neither a URL nor a known name: INVALID_URL on the field; a name-like value is told it could be a name', () => {
  const typo = refusal(() => parseRouteBody({ path: '/o/*', upstream: 'ordrs' }, undefined, CATALOG));
  assert.equal(typo.code, 'INVALID_URL');
  assert.deepEqual(typo.fields.map((f) => f.field), ['upstream']);
  assert.match(typo.fields[0]!.message, /'ordrs' is neither an absolute http\(s\) URL nor the name of an upstream/);
  const spaced = refusal(() => parseRouteBody({ path: '/o/*', target: 'not a url' }, undefined, CATALOG));
  assert.deepEqual(spaced.fields.map((f) => [f.field, f.message]), [['target', 'Invalid URL']]);
  // Without the catalog (no upstreams at all) a name is just a bad URL.
  assert.equal(refusal(() => parseRouteBody({ path: '/o/*', upstream: 'orders' })).code, 'INVALID_URL');
});

test('a GET answer sent back keeps the name while upstream is one of its targets; a changed upstream drops it', () => {
  const named = parseRouteBody({ id: 'r', path: '/o/*', upstream: 'orders' }, undefined, CATALOG);
  const cases: Array<{ what: string; upstream: string | undefined; name: string | undefined }> = [
    { what: 'unchanged', upstream: named.upstream, name: 'orders' },
    { what: 'another of its targets', upstream: 'http://10.0.0.2:8080/v1', name: 'orders' },
    { what: 'a URL of its own', upstream: 'http://elsewhere.example', name: undefined },
  ];
  for (const { what, upstream: value, name } of cases) {
    const sent = parseRouteBody({ ...named, upstream: value }, 'r', CATALOG);
    assert.equal(sent.upstreamName, name, what);
  }
  // A name that no longer exists is not trusted from the body.
  assert.equal(parseRouteBody({ ...named, upstreamName: 'gone' }, 'r', CATALOG).upstreamName, undefined);
});

test('a PATCH keeps the name unless it changes upstream or target', () => {
  const named = parseRouteBody({ id: 'r', path: '/o/*', upstream: 'orders' }, undefined, CATALOG);
  assert.equal(mergeRoutePatch(named, { description: 'd' }, CATALOG).upstreamName, 'orders');
  assert.equal(mergeRoutePatch(named, { upstream: 'file-svc' }, CATALOG).upstreamName, 'file-svc');
  const direct = mergeRoutePatch(named, { target: 'http://direct.example' }, CATALOG);
  assert.deepEqual([direct.upstreamName, direct.upstream], [undefined, 'http://direct.example']);
});
