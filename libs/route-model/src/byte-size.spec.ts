import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseByteSize } from './byte-size';

describe('parseByteSize', () => {
  const valid: Array<[unknown, number]> = [
    [1024, 1024],
    [0, 0],
    ['100b', 100],
    ['100', 100],
    ['512kb', 512 * 1024],
    ['10mb', 10 * 1024 * 1024],
    ['10MB', 10 * 1024 * 1024],
    ['1gb', 1024 ** 3],
    ['1.5kb', 1536],
    ['2 mb', 2 * 1024 * 1024],
    [' 3kb ', 3072],
  ];
  for (const [input, bytes] of valid) it(`${JSON.stringify(input)} -> ${bytes}`, () => assert.equal(parseByteSize(input), bytes));

  const invalid: unknown[] = [-1, 1.5, Number.NaN, Infinity, '', 'mb', '-1mb', '10 megabytes', '1e3', '10pb', null, undefined, {}, ['1kb'], true];
  for (const input of invalid) it(`${String(JSON.stringify(input))} -> undefined`, () => assert.equal(parseByteSize(input), undefined));
});
