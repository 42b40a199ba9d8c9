import http from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { requestClientIp } from './request-client-ip';

/** Answers each request with what requestClientIp read and what node reports for the socket now. */
function answer(req: http.IncomingMessage | http2.Http2ServerRequest, res: http.ServerResponse | http2.Http2ServerResponse): void {
  const ip = requestClientIp(req as http.IncomingMessage);
  res.end(JSON.stringify({ ip, remote: req.socket.remoteAddress }));
}

async function listen(server: http.Server | http2.Http2Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '::', resolve));
  return (server.address() as AddressInfo).port;
}

async function get(port: number, host: string, agent: http.Agent): Promise<{ ip: string; remote: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host, port, path: '/', agent }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve(JSON.parse(body) as { ip: string; remote: string }));
      })
      .on('error', reject);
  });
}

test('each HTTP/1 connection answers its own peer, on every request it carries, IPv4-mapped prefix removed', async () => {
  const server = http.createServer(answer);
  const port = await listen(server);
  // Two keep-alive connections at once from different address families to one dual-stack server:
  // a value kept anywhere but on its own connection would show up on the other.
  const v4 = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const v6 = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    for (let i = 0; i < 3; i += 1) {
      const [a, b] = await Promise.all([get(port, '127.0.0.1', v4), get(port, '::1', v6)]);
      assert.deepEqual(a, { ip: '127.0.0.1', remote: '::ffff:127.0.0.1' });
      assert.deepEqual(b, { ip: '::1', remote: '::1' });
    }
    // Still one connection each: the later requests were answered from the kept value.
    assert.equal(Object.values(v4.freeSockets).flat().length, 1);
    assert.equal(Object.values(v6.freeSockets).flat().length, 1);
  } finally {
    v4.destroy();
    v6.destroy();
    server.close();
  }
});

test('an HTTP/2 request reads its session socket peer as before', async () => {
  const server = http2.createServer(answer);
  const port = await listen(server);
  const session = http2.connect(`http://127.0.0.1:${port}`);
  try {
    for (let i = 0; i < 2; i += 1) {
      const body = await new Promise<string>((resolve, reject) => {
        const stream = session.request({ ':path': '/' });
        let text = '';
        stream.setEncoding('utf8');
        stream.on('data', (chunk: string) => (text += chunk));
        stream.on('end', () => resolve(text));
        stream.on('error', reject);
        stream.end();
      });
      assert.deepEqual(JSON.parse(body), { ip: '127.0.0.1', remote: '::ffff:127.0.0.1' });
    }
  } finally {
    session.close();
    server.close();
  }
});
