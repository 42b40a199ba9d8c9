import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { FIELD_VALUE, isFieldValue, isToken, TOKEN, trimmedSlice } from './http-syntax';

/** Any latin1 text, weighted towards the characters either class draws its line at, and some beyond latin1. */
const text = fc.array(
  fc.oneof(
    fc.integer({ min: 0, max: 255 }),
    fc.constantFrom(9, 10, 13, 32, 34, 40, 44, 58, 59, 127, 128, 255),
    fc.integer({ min: 256, max: 0xffff }),
  ),
  { maxLength: 24 },
).map((codes) => String.fromCharCode(...codes));

test('isToken and isFieldValue give the verdicts of TOKEN and FIELD_VALUE, on whole strings and on ranges', () => {
  fc.assert(
    fc.property(text, fc.nat(), fc.nat(), (value, a, b) => {
      assert.equal(isToken(value), TOKEN.test(value), JSON.stringify(value));
      assert.equal(isFieldValue(value), FIELD_VALUE.test(value), JSON.stringify(value));
      const from = Math.min(a, b) % (value.length + 1);
      const to = from + (Math.max(a, b) % (value.length - from + 1));
      const slice = value.slice(from, to);
      assert.equal(isToken(value, from, to), TOKEN.test(slice), `${JSON.stringify(value)} [${from}, ${to})`);
      assert.equal(isFieldValue(value, from, to), FIELD_VALUE.test(slice), `${JSON.stringify(value)} [${from}, ${to})`);
    }),
    { numRuns: 5000 },
  );
});

test('trimmedSlice strips SP and HTAB only, like trimming the slice', () => {
  assert.equal(trimmedSlice('a: \t v \t\r', 2, 8), 'v');
  assert.equal(trimmedSlice('x:\xa0v\xa0', 2, 5), '\xa0v\xa0');
  assert.equal(trimmedSlice('  ', 0, 2), '');
  const whole = 'value';
  assert.equal(trimmedSlice(whole, 0, whole.length), whole);
});
