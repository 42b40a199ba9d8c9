import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatTable } from './text-table';

test('pads every column but the last to its widest cell', () => {
  assert.deepEqual(formatTable(['ID', 'PATH'], [['a', '/x'], ['long-id', '/y/*']]), ['ID       PATH', 'a        /x', 'long-id  /y/*']);
});

test('a header alone when there are no rows', () => {
  assert.deepEqual(formatTable(['ID', 'PATH'], []), ['ID  PATH']);
});
