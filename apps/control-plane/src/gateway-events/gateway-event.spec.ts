import { test } from 'node:test';
import assert from 'node:assert/strict';
import { asGatewayEvent } from './gateway-event';

const valid = { id: 'evt_1', type: 'circuit_breaker.opened', createdAt: '2026-11-27T03:00:00.000Z', data: { breaker: 'route:a' } };

test('a bus message with id, type, createdAt and data passes as it is', () => {
  assert.deepEqual(asGatewayEvent(valid), valid);
});

test('anything else is dropped: missing or bad fields, overlong ids, odd kinds, non-object data', () => {
  const bad: unknown[] = [
    null,
    'evt',
    { ...valid, id: '' },
    { ...valid, id: 'x'.repeat(65) },
    { ...valid, type: 'has space' },
    { ...valid, type: 'x'.repeat(101) },
    { ...valid, createdAt: 'yesterday' },
    { ...valid, data: [] },
    { ...valid, data: null },
    { id: valid.id, type: valid.type, createdAt: valid.createdAt },
  ];
  for (const message of bad) assert.equal(asGatewayEvent(message), undefined, JSON.stringify(message));
});
