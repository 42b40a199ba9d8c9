import { test } from 'node:test';
import assert from 'node:assert/strict';
import { acceptsGzip } from './accept-encoding';

test('gzip is used when the scraper allows it, and only then', () => {
  const cases: Array<[string | undefined, boolean]> = [
    [undefined, false],
    ['', false],
    ['gzip', true],
    ['GZip', true],
    ['identity', false],
    ['deflate, gzip;q=0.5', true],
    ['gzip;q=0', false],
    ['gzip; q=0.000', false],
    ['gzip;q=0.001', true],
    ['gzip;q=1.0', true],
    ['gzip;q=2', false],
    ['gzip;q=abc', false],
    ['*', true],
    ['*;q=0', false],
    ['gzip;q=0, *', false],
    ['br, *;q=0.1', true],
    ['x-gzip', true],
    ['gzipped', false],
  ];
  for (const [header, expected] of cases) assert.equal(acceptsGzip(header), expected, String(header));
});
