import { mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateCorrelationId, isAcceptableCorrelationId, randomHex } from './correlation-id';

test('generated ids are req-<ms>-<10 hex>, unique, and acceptable when echoed back', () => {
  const ids = new Set<string>();
  const before = Date.now();
  for (let i = 0; i < 5000; i += 1) ids.add(generateCorrelationId());
  assert.equal(ids.size, 5000);
  for (const id of ids) {
    const match = /^req-(\d{13})-([0-9a-f]{10})$/.exec(id);
    assert.ok(match, id);
    assert.ok(Number(match[1]) >= before && Number(match[1]) <= Date.now());
    assert.ok(isAcceptableCorrelationId(id));
  }
});

test('client ids: at most 128 safe characters (decision 17)', () => {
  assert.ok(isAcceptableCorrelationId('abc-123_x.y:z'));
  assert.ok(isAcceptableCorrelationId('a'.repeat(128)));
  for (const bad of ['a'.repeat(129), '', 'has space', 'semi;colon', 'line\nbreak', undefined, ['a', 'b']]) {
    assert.equal(isAcceptableCorrelationId(bad as string), false, String(bad));
  }
});

test('randomHex: the asked number of bytes as lowercase hex, different each time, across pool refills', () => {
  const seen = new Set<string>();
  for (let i = 0; i < 1000; i += 1) {
    const hex = randomHex(16);
    assert.match(hex, /^[0-9a-f]{32}$/);
    seen.add(hex);
  }
  assert.equal(seen.size, 1000);
  assert.match(randomHex(8), /^[0-9a-f]{16}$/);
});

test('the id\'s time is the clock\'s milliseconds as written in full, across second boundaries and small clocks', () => {
  const clock = mock.method(Date, 'now', () => 0);
  try {
    for (const now of [1764300000000, 1764300000999, 1764300001000, 1764300001007, 1764300001070, 1764300059999, 0, 5, 999, 1000, 123456, 1764300001007]) {
      clock.mock.mockImplementation(() => now);
      const id = generateCorrelationId();
      assert.ok(id.startsWith(`req-${now}-`), `${now}: ${id}`);
      assert.match(id.slice(`req-${now}-`.length), /^[0-9a-f]{10}$/);
    }
  } finally {
    clock.mock.restore();
  }
});
