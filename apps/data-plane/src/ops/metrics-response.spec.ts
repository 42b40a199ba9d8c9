import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { Exchange } from '../engine/exchange';
import type { Logger, MetricsExposition } from '../engine/ports';
import { sendExposition } from './metrics-response';

const CHUNKS = 300;
const CHUNK_BYTES = 64 * 1024;

const silent: Logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

/** An exposition of CHUNKS chunks that records, at each chunk it hands out, how many earlier ones have not come back. */
function countingExposition(): { exposition: MetricsExposition; inFlight: number[] } {
  const inFlight: number[] = [];
  let handedOut = 0;
  let recycled = 0;
  function* chunks(): Generator<Uint8Array, void, undefined> {
    for (let i = 0; i < CHUNKS; i += 1) {
      inFlight.push(handedOut - recycled);
      handedOut += 1;
      yield Buffer.alloc(CHUNK_BYTES, 97 + (i % 26));
    }
  }
  return { exposition: { contentType: 'text/plain', chunks: chunks(), recycle: () => (recycled += 1) }, inFlight };
}

async function scrapeOnce(gzip: boolean): Promise<{ body: Buffer; inFlight: number[] }> {
  let inFlight: number[] = [];
  const server = http.createServer((req, res) => {
    const counting = countingExposition();
    inFlight = counting.inFlight;
    sendExposition(new Exchange(req, res, 'GET', '/metrics', '', '127.0.0.1', performance.now()), counting.exposition, silent);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const body = await new Promise<Buffer>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port, path: '/metrics', headers: gzip ? { 'accept-encoding': 'gzip' } : {} }, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (part: Buffer) => parts.push(part));
        res.on('end', () => resolve(Buffer.concat(parts)));
        res.on('error', reject);
      }).on('error', reject);
    });
    return { body: gzip ? gunzipSync(body) : body, inFlight };
  } finally {
    server.close();
  }
}

for (const gzip of [false, true]) {
  test(`a scrape through a real socket${gzip ? ' and gzip' : ''} takes a chunk only once the last has been given back: its memory is reused`, async () => {
    const { body, inFlight } = await scrapeOnce(gzip);
    assert.equal(body.length, CHUNKS * CHUNK_BYTES);
    assert.equal(body[CHUNK_BYTES * 27], 97 + 1, 'chunks in order');
    assert.equal(inFlight.length, CHUNKS);
    // On loopback the kernel takes every write at once, so this holds only because the response
    // (corked for its chunked framing) makes each 64 KiB write wait for 'drain': a raw socket would
    // have taken all 300 before the first came back, every one of them freshly allocated.
    assert.ok(Math.max(...inFlight) <= 1, `at most one chunk out when the next is taken (saw ${Math.max(...inFlight)})`);
  });
}
