import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readBodylessRequest } from './bodyless-request';

interface Seen {
  method: string;
  body: string;
  /** The request stream emitted 'end': node resumed it to its end (its dump) or it had a body that was read. */
  ended: boolean;
}

const hasBody = (req: http.IncomingMessage): boolean =>
  req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] ?? '0') !== '0';

/**
 * A node:http server that reads its bodyless requests as the dispatcher does and answers each after
 * a turn of the loop; a request with a body is read to its end first. Whether a request's stream
 * emitted 'end' is recorded a few turns after its response finished.
 */
async function startServer(seen: Seen[]): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    readBodylessRequest(req);
    const record: Seen = { method: req.method ?? '', body: '', ended: false };
    req.on('end', () => (record.ended = true));
    res.on('finish', () => setTimeout(() => seen.push(record), 20));
    const answer = (): void => {
      setImmediate(() => res.end(`${req.method} ${req.url} ${record.body.length}`));
    };
    if (!hasBody(req)) answer();
    else {
      req.setEncoding('latin1');
      req.on('data', (chunk: string) => (record.body += chunk));
      req.on('end', answer);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/** Sends `raw` on one connection and collects everything until the server closes it. */
function exchange(port: number, raw: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.end(raw));
    let data = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (data += chunk));
    socket.on('end', () => resolve(data));
    socket.on('error', reject);
  });
}

test('bodyless requests are read at once; bodies, pipelined behind them, still arrive whole and in order', async () => {
  const seen: Seen[] = [];
  const server = await startServer(seen);
  try {
    const { port } = server.address() as AddressInfo;
    const raw =
      'GET /a HTTP/1.1\r\nHost: h\r\n\r\n' +
      'POST /b HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello' +
      'DELETE /c HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n' +
      'PUT /d HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n' +
      'GET /e HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n';
    const reply = await exchange(port, raw);
    const bodies = [...reply.matchAll(/\r\n\r\n([A-Z]+ \/[a-e] \d+)/g)].map((m) => m[1]);
    assert.deepEqual(bodies, ['GET /a 0', 'POST /b 5', 'DELETE /c 0', 'PUT /d 3', 'GET /e 0']);
    await new Promise((resolve) => setTimeout(resolve, 100));
    // A bodyless request read at once is not dumped by node when its response finishes: its stream
    // never emits 'end' (without readBodylessRequest every one of them did).
    assert.deepEqual(
      seen.map((s) => [s.method, s.body, s.ended]),
      [
        ['GET', '', false],
        ['POST', 'hello', true],
        ['DELETE', '', false],
        ['PUT', 'abc', true],
        ['GET', '', false],
      ],
    );
  } finally {
    server.close();
  }
});

test('many bodyless requests on one keep-alive connection are all answered', async () => {
  const seen: Seen[] = [];
  const server = await startServer(seen);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const { port } = server.address() as AddressInfo;
    for (let i = 0; i < 50; i += 1) {
      const text = await new Promise<string>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port, path: `/k${i}`, agent }, (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => (body += chunk));
            res.on('end', () => resolve(body));
          })
          .on('error', reject);
      });
      assert.equal(text, `GET /k${i} 0`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(seen.length, 50);
    assert.ok(seen.every((s) => !s.ended));
  } finally {
    agent.destroy();
    server.close();
  }
});
