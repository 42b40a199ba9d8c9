import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DomainError } from '../common/domain-error';
import { mergeUpstreamPatch, parseUpstreamBody } from './upstream-input';

function fieldsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof DomainError);
    return (error.details?.['fields'] as Array<{ field: string }>).map((f) => f.field);
  }
  assert.fail('expected a DomainError');
}

const stored = parseUpstreamBody({ name: 'orders', targets: [{ url: 'http://a.example' }, { url: 'http://b.example', weight: 5 }], balancing: { algorithm: 'consistent-hash', hashOn: 'header', hashKey: 'x-user' } });

test('server-set fields sent back are ignored; the name may be repeated, never changed', () => {
  const again = parseUpstreamBody({ ...stored, source: 'file', createdAt: 'yesterday', updatedAt: 1 }, 'orders');
  assert.deepEqual(again, stored);
  assert.deepEqual(fieldsOf(() => parseUpstreamBody({ ...stored, name: 'other' }, 'orders')), ['name']);
  assert.equal(parseUpstreamBody({ url: 'http://a.example' }, 'orders').name, 'orders');
  assert.deepEqual(fieldsOf(() => parseUpstreamBody('text')), ['(body)']);
});

test('merge patch: objects merge, targets replace, null resets, url replaces the targets', () => {
  assert.deepEqual(mergeUpstreamPatch(stored, { balancing: { hashKey: 'x-tenant' } }).balancing, { algorithm: 'consistent-hash', hashOn: 'header', hashKey: 'x-tenant' });
  assert.deepEqual(mergeUpstreamPatch(stored, { targets: [{ url: 'http://c.example' }] }).targets, [{ url: 'http://c.example', weight: 100 }]);
  assert.deepEqual(mergeUpstreamPatch(stored, { url: 'http://d.example' }).targets, [{ url: 'http://d.example', weight: 100 }]);
  assert.deepEqual(mergeUpstreamPatch(stored, { balancing: { algorithm: 'round-robin', hashOn: null, hashKey: null } }).balancing, { algorithm: 'round-robin' });
  // Left half-done (hashOn kept with round-robin), the whole is refused on the field.
  assert.deepEqual(fieldsOf(() => mergeUpstreamPatch(stored, { balancing: { algorithm: 'round-robin' } })), ['balancing.hashOn']);
});
