import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { writeJsonAtomic } from './state-files';

test('a state file is the data as JSON, long top-level arrays one element a line, whatever the number of chunks written', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'state-files-'));
  try {
    const file = path.join(dir, 'routes.snapshot.json');
    // About 3 MB: written in many chunks, none of them a string of megabytes.
    const routes = Array.from({ length: 20_000 }, (_, i) => ({ id: `r-${i}`, path: `/p${i}/*`, upstream: `http://127.0.0.1:9/r/${i}`, tags: ['a', 'b'] }));
    const data = { appliedAt: '2026-11-27T12:00:00.000Z', source: 'file', routes, upstreams: [{ name: 'u', url: 'http://127.0.0.1:9' }], empty: [] };
    await writeJsonAtomic(file, data);
    const text = readFileSync(file, 'utf8');
    assert.deepEqual(JSON.parse(text), data);
    const lines = text.split('\n');
    assert.equal(lines[0], '{');
    assert.equal(lines[1], '  "appliedAt": "2026-11-27T12:00:00.000Z",');
    assert.equal(lines[3], '  "routes": [');
    assert.equal(lines[4], `    ${JSON.stringify(routes[0])},`);
    assert.equal(lines[3 + routes.length], `    ${JSON.stringify(routes.at(-1))}`);
    assert.equal(lines[4 + routes.length], '  ],');
    assert.ok(text.endsWith('  "empty": []\n}\n'), text.slice(-40));
    await writeJsonAtomic(file, [1, 2]);
    assert.equal(readFileSync(file, 'utf8'), '[\n  1,\n  2\n]\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
