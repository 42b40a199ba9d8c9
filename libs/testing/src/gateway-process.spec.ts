import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shebangNodeFlags } from './gateway-process';

test('node flags are read from an env -S shebang; a plain node shebang has none', () => {
  assert.deepEqual(shebangNodeFlags('#!/usr/bin/env -S node --max-semi-space-size=32\n"use strict";'), ['--max-semi-space-size=32']);
  assert.deepEqual(shebangNodeFlags('#!/usr/bin/env -S node --a=1  --b\nx'), ['--a=1', '--b']);
  assert.deepEqual(shebangNodeFlags('#!/usr/bin/env node\nx'), []);
  assert.deepEqual(shebangNodeFlags('"use strict";\n'), []);
  assert.deepEqual(shebangNodeFlags('#!/usr/bin/env -S nodejs --x\n'), [], 'another interpreter is not node');
});
