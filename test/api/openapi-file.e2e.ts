import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '@gateway/testing';
import { ADMIN_ENV, caller } from './auth-fixtures';
import { startControlPlaneProcess, type ControlPlaneProcess } from './control-plane-process';

/** Checked in, written by `npm run openapi`; the admin UI's API types are generated from it. */
const CHECKED_IN = path.join(REPO_ROOT, 'apps', 'control-plane', 'openapi.json');

let cp: ControlPlaneProcess;
before(async () => {
  cp = await startControlPlaneProcess({ env: ADMIN_ENV });
});
after(async () => {
  await cp?.stop();
});

test('apps/control-plane/openapi.json is the document a running control plane serves', async () => {
  const served = (await caller(cp)('GET', '/api/docs-json')).json<unknown>();
  const file: unknown = JSON.parse(readFileSync(CHECKED_IN, 'utf8'));
  // Compared as text with the script's formatting so the message shows where they part.
  const expected = `${JSON.stringify(served, null, 2)}\n`;
  const actual = readFileSync(CHECKED_IN, 'utf8');
  if (actual !== expected) {
    const lines = { actual: actual.split('\n'), expected: expected.split('\n') };
    const at = lines.expected.findIndex((line, i) => line !== lines.actual[i]);
    assert.fail(`openapi.json differs from the served document at line ${at + 1}: file has ${JSON.stringify(lines.actual[at])}, served ${JSON.stringify(lines.expected[at])}. Run \`npm run openapi\` and commit it.`);
  }
  assert.deepEqual(file, served);
});
