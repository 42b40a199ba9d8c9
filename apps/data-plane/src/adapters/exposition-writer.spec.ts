import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ExpositionWriter, NUMBER_ROOM, writeNumber } from './exposition-writer';

const joined = (chunks: readonly Uint8Array[]): string => Buffer.concat(chunks).toString('utf8');

test('numbers are written as the text format reads them: integers without a fraction, floats as JavaScript prints them', () => {
  const values = [0, 1, 9, 10, 99, 100, 12345, 2 ** 31, 2 ** 53 - 1, 2 ** 53, 1e21, 0.5, 0.005, 1 / 3, 123.456, 1e-7, -1, -0.25, Infinity, -Infinity, NaN];
  const out = new ExpositionWriter();
  for (const value of values) {
    out.number(value);
    out.newline();
  }
  const expected = values.map((v) => (v === Infinity ? '+Inf' : v === -Infinity ? '-Inf' : String(v)));
  assert.deepEqual(joined(out.finish()).split('\n').slice(0, -1), expected);
});

test('random whole numbers match String()', () => {
  const out = new ExpositionWriter();
  const values: number[] = [];
  for (let i = 0; i < 2000; i += 1) {
    const value = Math.floor(Math.random() * 10 ** (i % 16));
    values.push(value);
    out.number(value);
    out.newline();
  }
  assert.equal(joined(out.finish()), values.map((v) => `${v}\n`).join(''));
});

test('lines across many chunks come out whole and in order, a piece larger than a chunk included', () => {
  const out = new ExpositionWriter();
  const label = Buffer.from('route="ünï",method="GET"');
  const huge = 'x'.repeat(200_000);
  let expected = '';
  const chunks: Uint8Array[] = [];
  const open = Buffer.from('name{');
  for (let i = 0; i < 20_000; i += 1) {
    // Three lines written straight into one claim (as a series' lines are), then advanced over.
    const chunk = out.claim(3 * (open.length + label.length + 1 + NUMBER_ROOM));
    let at = out.position;
    for (const value of [i, i / 4, i % 10]) {
      chunk.set(open, at);
      chunk.set(label, (at += open.length));
      at = writeNumber(chunk, at + label.length, value);
      chunk[at++] = 10;
    }
    out.advance(at);
    out.ascii(`#${i}#`);
    out.newline();
    const labels = label.toString();
    expected += `name{${labels}${i}\nname{${labels}${i / 4}\nname{${labels}${i % 10}\n#${i}#\n`;
    if (i === 10_000) {
      out.text(huge);
      expected += huge;
    }
    if (out.hasCompleted) chunks.push(...out.takeCompleted());
  }
  chunks.push(...out.finish());
  assert.ok(chunks.length > 10, `${chunks.length} chunks`);
  assert.equal(joined(chunks), expected);
  assert.deepEqual(out.finish(), [], 'nothing is handed out twice');
});

test('a sent chunk given back is written into again instead of a new allocation', () => {
  const out = new ExpositionWriter();
  const line = `${'x'.repeat(99)}\n`;
  while (!out.hasCompleted) out.ascii(line);
  const [first] = out.takeCompleted();
  assert.ok(first !== undefined);
  out.recycle(first);
  out.recycle(Buffer.from('not one of ours'));
  // Fills the chunk that was current when `first` came back; the next one is `first`'s memory.
  while (!out.hasCompleted) out.ascii('y');
  out.takeCompleted();
  out.ascii('z');
  const [reused] = out.finish();
  assert.equal(reused?.buffer, first.buffer, 'the same memory');
  assert.equal(Buffer.from(reused ?? []).toString(), 'yz');
});
