import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bucketOf, DURATION_BUCKETS_MS, HISTOGRAM_LINES, SeriesFamily } from './series-family';

const opens = [...[...DURATION_BUCKETS_MS.map(String), '+Inf'].map((le) => `h_bucket{le="${le}",`), 'h_sum{', 'h_count{'].map((open) => Buffer.from(open));
const openLengths = opens.map((o) => o.length);

/** The lines as the text format spells them, from the recorded durations, with String() for every number. */
function expectedLines(labels: string, durations: readonly number[], scale: number): string {
  const perBucket = new Array<number>(DURATION_BUCKETS_MS.length + 1).fill(0);
  let sum = 0;
  for (const d of durations) {
    perBucket[bucketOf(d)] += 1;
    sum += d;
  }
  let cumulative = 0;
  const lines = perBucket.map((n, b) => `${(opens[b] as Buffer).toString()}${labels}} ${(cumulative += n)}\n`);
  return `${lines.join('')}h_sum{${labels}} ${sum * scale}\nh_count{${labels}} ${durations.length}\n`;
}

test("a histogram series' 13 lines and its counter line are written into the chunk as the text format spells them", () => {
  const family = new SeriesFamily();
  const cases: { labels: string; durations: number[] }[] = [
    { labels: 'route="a",status="200"', durations: [3] },
    { labels: 'route="ünï",status="503"', durations: Array.from({ length: 1234 }, (_, i) => (i * 7.31) % 6000) },
    { labels: '', durations: [] },
    { labels: 'route="b"', durations: [0.5, 1e9, 12, 12, 4999.999] },
  ];
  for (const c of cases) {
    const slot = family.add(c.labels);
    for (const d of c.durations) family.record(slot, d, bucketOf(d));
  }
  for (const scale of [1, 1 / 1000]) {
    cases.forEach((c, slot) => {
      const chunk = Buffer.alloc(family.histogramBytes(slot, Math.max(...openLengths)) + 5);
      const end = family.histogramLines(chunk, 5, slot, opens, openLengths, scale);
      assert.equal(chunk.toString('utf8', 5, end), expectedLines(c.labels, c.durations, scale), c.labels);
      assert.equal(chunk.toString('utf8', 5, end).split('\n').length - 1, HISTOGRAM_LINES);
      const open = Buffer.from('c_total{');
      const line = Buffer.alloc(family.counterBytes(slot, open));
      const lineEnd = family.counterLine(line, 0, slot, open);
      assert.equal(line.toString('utf8', 0, lineEnd), `c_total{${c.labels}} ${c.durations.length}\n`);
    });
  }
});
