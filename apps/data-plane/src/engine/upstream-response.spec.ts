import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Exchange } from './exchange';
import type { UpstreamExchange } from './upstream-client/upstream-connection';
import { UpstreamResponse } from './upstream-response';

/** The upstream side of an attempt, reduced to what the body's backpressure calls: pause and resume, counted. */
function recordingUpstream(): { upstream: UpstreamExchange; pauses: () => number } {
  let pauses = 0;
  const upstream = { pause: () => (pauses += 1), resume: () => undefined, abort: () => undefined };
  return { upstream: upstream as unknown as UpstreamExchange, pauses: () => pauses };
}

/**
 * A real server whose handler feeds `slices` into its response through an UpstreamResponse, each
 * with the `last` flag the lean client would give; the client reads the whole body. A 16 KiB slice
 * with the head passes node's 16 KiB high-water mark while the first write is corked, so the
 * response's write returns false as it does for a client that is full.
 */
async function serve(slices: Array<{ bytes: Buffer; last: boolean }>): Promise<{ pauses: number; body: Buffer }> {
  const recorder = recordingUpstream();
  const server = http.createServer((_req, res) => {
    const response = new UpstreamResponse({} as Exchange, () => undefined, undefined);
    response.upstream = recorder.upstream;
    res.writeHead(200, { 'content-length': String(slices.reduce((n, s) => n + s.bytes.length, 0)) });
    response.pipeTo(res);
    for (const slice of slices) response.onData(slice.bytes, slice.last);
    response.onEnd([]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const body = await new Promise<Buffer>((resolve, reject) => {
      http.get(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve(Buffer.concat(chunks)));
        res.on('error', reject);
      }).on('error', reject);
    });
    return { pauses: recorder.pauses(), body };
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

test('the slice that completes a body is written without pausing the upstream, even past the high-water mark', async () => {
  const bytes = Buffer.alloc(16 * 1024, 0x61);
  const { pauses, body } = await serve([{ bytes, last: true }]);
  assert.equal(pauses, 0, 'nothing more is to come: a pause would only stop and restart the upstream read');
  assert.ok(body.equals(bytes));
});

test('a slice with more of the body to come pauses the upstream when the client is full', async () => {
  const first = Buffer.alloc(16 * 1024, 0x62);
  const rest = Buffer.alloc(100, 0x63);
  const { pauses, body } = await serve([
    { bytes: first, last: false },
    { bytes: rest, last: true },
  ]);
  assert.equal(pauses, 1, 'backpressure: the upstream must wait for the client');
  assert.ok(body.equals(Buffer.concat([first, rest])));
});
