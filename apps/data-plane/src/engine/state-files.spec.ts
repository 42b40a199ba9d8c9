import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { makeTempDir } from '@gateway/testing';
import { ELEMENT_SEPARATOR, LatestJsonFile, SerializedJsonArray, writeJsonAtomic } from './state-files';

test('a state file larger than one write chunk holds the same JSON, a long array one element a line', async () => {
  const dir = makeTempDir();
  try {
    const file = path.join(dir.path, 'nested', 'routes.snapshot.json');
    const routes = Array.from({ length: 3000 }, (_, i) => ({ id: `r-${i}`, path: `/p${i}/*`, note: i % 7 === 0 ? 'é€😀 "quoted"\n' : null }));
    const data = { appliedAt: '2026-11-27T12:00:00.000Z', skipped: undefined, version: 7, routes, upstreams: [{ name: 'u', targets: [1, 2] }], empty: [] };
    await writeJsonAtomic(file, data);
    const text = readFileSync(file, 'utf8');
    assert.ok(Buffer.byteLength(text) > 128 * 1024, 'several chunks were written');
    assert.deepEqual(JSON.parse(text), JSON.parse(JSON.stringify(data)));
    const lines = text.split('\n');
    assert.equal(lines[0], '{');
    assert.equal(lines.filter((line) => line.startsWith('    {"id":"r-')).length, routes.length, 'one route a line');
    assert.equal(text.endsWith('}\n'), true);
    assert.equal(statSync(file).mode & 0o777, 0o600);
  } finally {
    dir.remove();
  }
});

test('an array serialized beforehand is written as its elements\' bytes: the same file as the array itself', async () => {
  const dir = makeTempDir();
  try {
    const routes = Array.from({ length: 3000 }, (_, i) => ({ id: `r-${i}`, path: `/p${i}/*`, note: i % 7 === 0 ? 'é€😀 "quoted"\n' : null, pad: 'x'.repeat(400) }));
    const encoded = routes.map((r) => Buffer.from(JSON.stringify(r)));
    const plain = path.join(dir.path, 'plain.json');
    const serialized = path.join(dir.path, 'serialized.json');
    await writeJsonAtomic(plain, { version: 7, routes, empty: [] });
    await writeJsonAtomic(serialized, { version: 7, routes: new SerializedJsonArray(encoded.length, (i) => encoded[i] as Buffer), empty: new SerializedJsonArray(0, () => Buffer.alloc(0)) });
    assert.ok(statSync(serialized).size > 128 * 1024, 'several chunks were written');
    assert.equal(readFileSync(serialized, 'utf8'), readFileSync(plain, 'utf8'));
    // The elements given joined as well (the reload worker's layout): written from the joined bytes, the same file.
    const joinedFile = path.join(dir.path, 'joined.json');
    const joined = Buffer.from(encoded.map((b) => b.toString('utf8')).join(ELEMENT_SEPARATOR));
    const unused = (): Uint8Array => assert.fail('the joined bytes are written, not the elements one by one');
    await writeJsonAtomic(joinedFile, { version: 7, routes: new SerializedJsonArray(encoded.length, unused, joined), empty: new SerializedJsonArray(0, unused, Buffer.alloc(0)) });
    assert.ok(joined.length > 1024 * 1024, 'joined bytes of more than one write slice');
    assert.equal(readFileSync(joinedFile, 'utf8'), readFileSync(plain, 'utf8'));
    const one = path.join(dir.path, 'one.json');
    await writeJsonAtomic(one, { routes: new SerializedJsonArray(1, unused, encoded[0] as Buffer) });
    const first = encoded[0] as Buffer;
    assert.equal(readFileSync(one, 'utf8'), await writeAndRead(path.join(dir.path, 'one-element.json'), { routes: new SerializedJsonArray(1, () => first) }));
  } finally {
    dir.remove();
  }
});

async function writeAndRead(file: string, data: unknown): Promise<string> {
  await writeJsonAtomic(file, data);
  return readFileSync(file, 'utf8');
}

test('LatestJsonFile: the last value offered wins, and every writer hears when it is on disk', async () => {
  const dir = makeTempDir();
  try {
    const file = new LatestJsonFile(path.join(dir.path, 'state.json'));
    const writes = [1, 2, 3].map((n) => file.write({ n, items: Array.from({ length: 100 }, (_, i) => i * n) }));
    await Promise.all(writes);
    await file.settled();
    assert.equal((JSON.parse(readFileSync(file.filePath, 'utf8')) as { n: number }).n, 3);
  } finally {
    dir.remove();
  }
});
