import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseJsonSteps } from './json-steps';
import { runToEnd } from './time-slices';

/** JSON.parse's verdict and value, or ours, in a form deepEqual compares. */
function verdict(parse: () => unknown): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: parse() };
  } catch (error) {
    assert.ok(error instanceof SyntaxError, `a SyntaxError, not ${String(error)}`);
    return { ok: false };
  }
}

const sameAsJsonParse = (text: string): void => {
  assert.deepEqual(
    verdict(() => runToEnd(parseJsonSteps(text))),
    verdict(() => JSON.parse(text)),
    text,
  );
};

/** Documents shaped like a snapshot: an object whose values are often arrays of objects. */
const snapshotLike = fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('routes', '__proto__', 'constructor')), fc.oneof(fc.array(fc.jsonValue()), fc.jsonValue()));

describe('parseJsonSteps', () => {
  it('gives what JSON.parse gives for valid documents, however they are spaced', () => {
    fc.assert(
      fc.property(snapshotLike, fc.constantFrom(undefined, 1, '\t', ' \r\n '), (value, space) => {
        const text = JSON.stringify(value, null, space);
        const parsed = runToEnd(parseJsonSteps(text));
        assert.deepEqual(parsed, JSON.parse(text));
        assert.equal(Object.getPrototypeOf(parsed), Object.prototype, 'a "__proto__" key is an own property, as with JSON.parse');
      }),
      { numRuns: 300 },
    );
    fc.assert(fc.property(fc.json(), sameAsJsonParse), { numRuns: 300 });
  });

  it('refuses what JSON.parse refuses: documents with a character cut, doubled or inserted', () => {
    const mutated = fc
      .tuple(snapshotLike.map((v) => JSON.stringify(v, null, 1)), fc.nat(), fc.constantFrom('', ',', ':', '"', '[', ']', '{', '}', ' ', 'x', '\\', '1'), fc.constantFrom('cut', 'insert', 'replace'))
      .map(([text, position, char, how]) => {
        const at = text.length === 0 ? 0 : position % text.length;
        if (how === 'cut') return text.slice(0, at) + text.slice(at + 1);
        if (how === 'insert') return text.slice(0, at) + char + text.slice(at);
        return text.slice(0, at) + char + text.slice(at + 1);
      });
    fc.assert(fc.property(mutated, sameAsJsonParse), { numRuns: 2000 });
    for (const text of ['', ' ', '{', '{}x', '{"a":[1,]}', '{"a":[,1]}', '{"a":1,}', '{,}', '{"a"}', '{"a":}', '{"a":1 2}', '{"a":"x"y}', '{"a":[1 2]}', '{"a":[}', '{"a":[1}]', '{"a":tru}']) {
      sameAsJsonParse(text);
    }
  });

  it('parses one element of a top-level array a step', () => {
    const text = JSON.stringify({ version: 3, routes: Array.from({ length: 1000 }, (_, i) => ({ id: `r-${i}`, path: `/r/${i}` })), upstreams: [] });
    const steps = parseJsonSteps(text);
    let count = 0;
    let step = steps.next();
    while (step.done !== true) {
      count += 1;
      step = steps.next();
    }
    assert.equal(count, 1000);
    assert.deepEqual(step.value, JSON.parse(text));
  });
});
