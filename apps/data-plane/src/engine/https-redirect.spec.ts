import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { rawRequest, rawStatus } from '@gateway/testing';
import { withHttpsRedirect } from './https-redirect';

describe('withHttpsRedirect', () => {
  let server: http.Server;
  let port: number;
  let httpsPort = 8443;

  before(async () => {
    const served = (_req: http.IncomingMessage, res: http.ServerResponse): void => void res.end('served');
    server = http.createServer(withHttpsRedirect(() => httpsPort, (p) => p === '/health', served));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const ask = (head: string): Promise<string> => rawRequest(port, `${head}\r\n\r\n`);
  const location = (reply: string): string | undefined => /\r\nlocation: ([^\r]*)/i.exec(reply)?.[1];

  test('keeps host and target, drops the HTTP port, and leaves the port out for 443', async () => {
    let reply = await ask('GET /a/b?c=1&d=%20 HTTP/1.1\r\nHost: api.example.com:8080\r\nConnection: close');
    assert.equal(rawStatus(reply), 301);
    assert.equal(location(reply), 'https://api.example.com:8443/a/b?c=1&d=%20');
    reply = await ask('GET / HTTP/1.1\r\nHost: [2001:db8::1]:8080\r\nConnection: close');
    assert.equal(location(reply), 'https://[2001:db8::1]:8443/');
    httpsPort = 443;
    reply = await ask('HEAD /x HTTP/1.1\r\nHost: api.example.com\r\nConnection: close');
    assert.equal(rawStatus(reply), 301);
    assert.equal(location(reply), 'https://api.example.com/x');
    httpsPort = 8443;
  });

  test('308 keeps the method of anything but GET and HEAD', async () => {
    const reply = await ask('POST /orders HTTP/1.1\r\nHost: shop.example\r\nContent-Length: 0\r\nConnection: close');
    assert.equal(rawStatus(reply), 308);
    assert.equal(location(reply), 'https://shop.example:8443/orders');
  });

  test('serves the paths kept on HTTP, and refuses a missing or malformed Host instead of redirecting anywhere', async () => {
    assert.match(await ask('GET /health HTTP/1.1\r\nHost: h\r\nConnection: close'), /served$/);
    assert.match(await ask('GET /health?x HTTP/1.1\r\nHost: h\r\nConnection: close'), /served$/);
    assert.equal(rawStatus(await ask('GET /x HTTP/1.0\r\nConnection: close')), 400);
    assert.equal(rawStatus(await ask('GET /x HTTP/1.1\r\nHost: evil.example/path\r\nConnection: close')), 400);
    assert.equal(rawStatus(await ask('GET http://other.example/x HTTP/1.1\r\nHost: other.example\r\nConnection: close')), 400);
  });
});
