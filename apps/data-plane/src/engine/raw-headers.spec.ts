import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { headersOf, rawHeaderValue } from './raw-headers';

/** Sends `head` as a raw response and returns node's own IncomingMessage header map and raw list for it. */
async function parsedByNode(head: string): Promise<{ headers: http.IncomingHttpHeaders; raw: string[] }> {
  const server = net.createServer((socket) => socket.once('data', () => socket.end(`${head}Content-Length: 0\r\n\r\n`)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return await new Promise((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, agent: false }, (res) => {
          res.resume();
          resolve({ headers: res.headers, raw: res.rawHeaders });
        })
        .on('error', reject);
    });
  } finally {
    server.close();
  }
}

describe('headersOf: the header map node would build from the raw list', () => {
  test('repeated fields are joined, kept once or listed exactly as node does', async () => {
    const head =
      'HTTP/1.1 200 OK\r\n' +
      'Set-Cookie: a=1\r\nSET-COOKIE: b=2\r\n' +
      'Content-Type: text/plain\r\ncontent-type: text/html\r\n' +
      'Vary: Accept\r\nVary: Origin\r\n' +
      'Cache-Control: no-cache\r\nCache-Control: private\r\n' +
      'Location: /one\r\nLocation: /two\r\n' +
      'ETag: "x"\r\nETag: "y"\r\n' +
      'X-Custom: 1\r\nx-custom: 2\r\n' +
      'Cookie: c=3\r\nCookie: d=4\r\n' +
      'Server: one\r\nServer: two\r\n';
    const node = await parsedByNode(head);
    assert.deepEqual(headersOf(node.raw), { ...node.headers });
  });

  test('rawHeaderValue finds the first value of a field, whatever its case', () => {
    const raw = ['Content-Type', 'text/event-stream', 'content-type', 'text/plain', 'X-A', '1'];
    assert.equal(rawHeaderValue(raw, 'content-type'), 'text/event-stream');
    assert.equal(rawHeaderValue(raw, 'x-a'), '1');
    assert.equal(rawHeaderValue(raw, 'x-b'), undefined);
  });

  test('rawHeaderValue matches a name as toLowerCase would, for every token character', () => {
    const tchars = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    for (const a of tchars) {
      for (const b of tchars) {
        const name = `x${a}${b}`;
        const lower = name.toLowerCase();
        assert.equal(rawHeaderValue([name, 'v'], lower), 'v', name);
        // A name of the same length that differs in a character is not found.
        const other = `x${a}${b === '~' ? '!' : '~'}`.toLowerCase();
        assert.equal(rawHeaderValue([name, 'v'], other), other === lower ? 'v' : undefined, `${name} ${other}`);
      }
    }
    assert.equal(rawHeaderValue(['X_Under', 'u', 'X-Under', 'd'], 'x-under'), 'd');
    assert.equal(rawHeaderValue(['X^A', 'c'], 'x^a'), 'c');
  });
});
