import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DomainError } from '../common/domain-error';
import { parseRouteListQuery } from './route-list-query';

test('defaults of decision 5', () => {
  assert.deepEqual(parseRouteListQuery({}), { limit: 10, offset: 0, search: undefined, enabled: undefined, tag: undefined, deleted: false });
});

test('every value parsed; an empty search is no filter', () => {
  assert.deepEqual(parseRouteListQuery({ limit: '100', offset: '20', search: '', enabled: 'false', tag: 'team-a', deleted: 'true' }), {
    limit: 100,
    offset: 20,
    search: undefined,
    enabled: false,
    tag: 'team-a',
    deleted: true,
  });
});

test('every bad or unknown parameter is named at once', () => {
  try {
    parseRouteListQuery({ limit: '0', offset: 'x', enabled: 'yes', tag: ['a', 'b'], page: '2', search: 's'.repeat(300) });
    assert.fail('expected an error');
  } catch (error) {
    assert.ok(error instanceof DomainError);
    assert.equal(error.code, 'VALIDATION_ERROR');
    const fields = (error.details?.['fields'] as Array<{ field: string }>).map((f) => f.field).sort();
    assert.deepEqual(fields, ['enabled', 'limit', 'offset', 'page', 'search', 'tag']);
  }
});
