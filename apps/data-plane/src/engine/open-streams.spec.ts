import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isEventStream } from './open-streams';

// The rule before the first-character shortcut: the shortcut must never change its answer.
const byCopies = (value: string): boolean => value.trimStart().toLowerCase().startsWith('text/event-stream');

test('isEventStream answers as the trimmed, lower-cased comparison, whatever the first character', () => {
  for (let code = 0; code < 0x3100; code += 1) {
    const c = String.fromCharCode(code);
    for (const value of [`${c}ext/event-stream`, `${c}text/event-stream`, `${c}TEXT/EVENT-STREAM; charset=utf-8`, `${c}application/json`, c]) {
      assert.equal(isEventStream(value), byCopies(value), `code ${code}: ${JSON.stringify(value)}`);
    }
  }
  for (const value of ['text/event-stream', 'Text/Event-Stream', ' \t text/event-stream', '\u00a0text/event-stream', '\ufefftext/event-stream', 'text/plain', 'application/octet-stream', '']) {
    assert.equal(isEventStream(value), byCopies(value), JSON.stringify(value));
  }
  assert.equal(isEventStream(undefined), false);
  assert.equal(isEventStream('text/event-stream'), true);
  assert.equal(isEventStream('application/octet-stream'), false);
});
