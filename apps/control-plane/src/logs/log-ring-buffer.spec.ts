import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LogRingBuffer } from './log-ring-buffer';

test('bounded: the oldest lines are dropped first', () => {
  const buffer = new LogRingBuffer([], 3);
  for (let i = 0; i < 5; i++) buffer.record('info', 'T', `line ${i}`);
  assert.deepEqual(buffer.query({ limit: 10 }).lines.map((l) => l.message), ['line 2', 'line 3', 'line 4']);
});

test('level means that level and more severe; since is strict; limit keeps the newest', () => {
  const buffer = new LogRingBuffer();
  const t0 = new Date('2026-01-01T00:00:00.000Z');
  buffer.record('debug', 'A', 'd', t0);
  buffer.record('info', 'A', 'i', new Date(t0.getTime() + 1));
  buffer.record('warn', 'A', 'w', new Date(t0.getTime() + 2));
  buffer.record('error', 'A', 'e', new Date(t0.getTime() + 3));
  assert.deepEqual(buffer.query({ limit: 10, level: 'warn' }).lines.map((l) => l.message), ['w', 'e']);
  assert.deepEqual(buffer.query({ limit: 10, since: new Date(t0.getTime() + 1) }).lines.map((l) => l.message), ['w', 'e']);
  const newest = buffer.query({ limit: 2 });
  assert.deepEqual(newest.lines.map((l) => l.message), ['w', 'e']);
  assert.equal(newest.total, 4);
});

test('secrets never reach the buffer', () => {
  const buffer = new LogRingBuffer(['the-jwt-secret-0123456789', 'cluster-token-abcdef']);
  const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';
  buffer.record('info', 'X', `secret the-jwt-secret-0123456789 token cluster-token-abcdef`);
  buffer.record('info', 'X', `Authorization: Bearer abc.def.ghi and ${jwt}`);
  buffer.record('info', 'X', '{"email":"a@b.c","password":"hunter2hunter2"} password=s3cret&x=1');
  buffer.record('info', 'X', 'connecting to redis://user:p4ss@127.0.0.1:6379');
  const apiKey = `gw_${'Ab3-_'.repeat(8)}xyz`;
  buffer.record('info', 'X', `key ${apiKey} (gw_Ab3-_A...) created`);
  const text = JSON.stringify(buffer.query({ limit: 10 }).lines);
  assert.match(text, /\(gw_Ab3-_A\.\.\.\)/, 'a display prefix is not a key');
  for (const secret of ['the-jwt-secret-0123456789', 'cluster-token-abcdef', 'abc.def.ghi', jwt, 'hunter2hunter2', 's3cret', 'p4ss', apiKey]) {
    assert.ok(!text.includes(secret), `${secret} leaked: ${text}`);
  }
  assert.match(text, /a@b\.c/);
  assert.match(text, /127\.0\.0\.1:6379/);
});
