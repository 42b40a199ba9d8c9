import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startGatewayProcess, startUpstream, withTimeout, type GatewayProcess, type LoopbackUpstream } from '@gateway/testing';

/*
 * Long responses through a real `gateway start` process (docs/data-plane.md, "Request timeout"):
 * timeout.request limits the time to the response head, timeout.idle the silences of the body, so a
 * healthy event stream outlives the request timeout and a stalled one is cut.
 */

/** Reads a whole response, reporting whether it ended complete or was cut. */
function readAll(url: string): Promise<{ status: number; text: string; complete: boolean; contentType: string | undefined }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        const done = (): void => resolve({ status: res.statusCode ?? 0, text, complete: res.complete, contentType: res.headers['content-type'] });
        res.on('end', done);
        res.on('close', done);
        res.on('error', () => undefined);
      })
      .on('error', reject);
  });
}

describe('streamed responses', () => {
  let upstream: LoopbackUpstream;
  let gateway: GatewayProcess;

  before(async () => {
    upstream = await startUpstream({
      handler: (req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        if (req.url === '/events') {
          // Ten events 250 ms apart: 2.5 s in all, past the route's 1 s request timeout.
          let sent = 0;
          const timer = setInterval(() => {
            sent += 1;
            res.write(`data: ${sent}\n\n`);
            if (sent === 10) {
              clearInterval(timer);
              res.end();
            }
          }, 250);
          res.on('close', () => clearInterval(timer));
        } else {
          // One event, then silence for good.
          res.write('data: only\n\n');
        }
      },
    });
    gateway = await startGatewayProcess({
      config:
        `version: "1.0.0"\nroutes:\n` +
        `  - { path: /events, upstream: "${upstream.origin}", stripPath: false, timeout: { request: 1000 } }\n` +
        `  - { path: /stalled, upstream: "${upstream.origin}", stripPath: false, timeout: { request: 1000, idle: 500 } }\n`,
    });
  });

  after(async () => {
    await gateway?.stop();
    await upstream?.close();
  });

  test('an event stream longer than the request timeout arrives whole, event by event', async () => {
    const res = await withTimeout(readAll(`${gateway.url}/events`), 20_000, 'the stream did not end');
    assert.equal(res.status, 200);
    assert.equal(res.contentType, 'text/event-stream');
    assert.equal(res.complete, true);
    assert.deepEqual(res.text.trim().split('\n\n'), Array.from({ length: 10 }, (_, i) => `data: ${i + 1}`));
  });

  test('a stream that goes silent longer than timeout.idle is cut, not ended as complete', async () => {
    const res = await withTimeout(readAll(`${gateway.url}/stalled`), 20_000, 'the silent stream was never cut');
    assert.equal(res.status, 200);
    assert.equal(res.text, 'data: only\n\n');
    assert.equal(res.complete, false);
  });
});
