import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type http from 'node:http';
import { echoHandler, request, startGatewayProcess, startUpstream, type GatewayProcess, type LoopbackUpstream } from '@gateway/testing';

interface Echo {
  method: string;
  url: string;
  headers: Record<string, string>;
}

const DOC = { id: 7, password: 'hunter2', user: { name: 'ann', token: 't-1', keep: true }, items: [{ id: 1, secret: 's1' }, { id: 2, secret: 's2' }] };

/** JSON, chunked JSON, oversized JSON, text and broken JSON, by path; everything else is echoed. */
function contentHandler(req: http.IncomingMessage, res: http.ServerResponse, body: Buffer): void {
  const path = (req.url ?? '').replace(/\?.*$/, '').replace(/^\/base/, '');
  const json = JSON.stringify(DOC);
  switch (path) {
    case '/json':
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(json), etag: '"v1"', 'x-upstream-secret': 'yes' });
      res.end(json);
      return;
    case '/problem':
      res.writeHead(422, { 'content-type': 'application/problem+json' });
      res.end(JSON.stringify({ title: 'x', password: 'p' }));
      return;
    case '/chunked':
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(json.slice(0, 10));
      res.end(json.slice(10));
      return;
    case '/big': {
      const big = JSON.stringify({ password: 'p', filler: 'x'.repeat(4000) });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(big) });
      res.end(big);
      return;
    }
    case '/big-chunked': {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"password":"p","filler":"');
      res.end(`${'x'.repeat(4000)}"}`);
      return;
    }
    case '/text': {
      const text = 'password=hunter2 '.repeat(300);
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(text) });
      res.end(text);
      return;
    }
    case '/broken':
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"password": "p"');
      return;
    case '/shaped-head':
      // A head the response rules must edit: their names in other cases and repeated, a field the
      // Connection header makes hop-by-hop, the gateway's own correlation header, repeated cookies.
      res.writeHead(200, [
        'Content-Type', 'text/plain',
        'X-Upstream-Secret', 'a',
        'x-upstream-secret', 'b',
        'X-SERVED-BY', 'upstream',
        'X-Response-Time', 'upstream',
        'Server', 'up',
        'Connection', 'x-hop',
        'X-Hop', 'hop',
        'X-Correlation-ID', 'upstream-id',
        'Set-Cookie', 'a=1',
        'Set-Cookie', 'b=2',
        'X-Kept', 'k',
      ]);
      res.end('shaped');
      return;
    case '/gzip':
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(Buffer.from([0x1f, 0x8b, 0x08, 0x00]));
      return;
    default:
      echoHandler(req, res, body);
  }
}

describe('headers and transform policies', () => {
  let upstream: LoopbackUpstream;
  let gateway: GatewayProcess;

  before(async () => {
    upstream = await startUpstream({ handler: contentHandler });
    gateway = await startGatewayProcess({
      config: `
version: "1.0.0"
proxy: { host: 127.0.0.1, port: 8080, maxBodySize: 2kb }
upstreams:
  - { name: main, url: "${upstream.origin}/base" }
routes:
  - id: hdr
    path: /h/*
    upstream: main
    headers:
      request:
        set:
          X-Req: "id=\${requestId}"
          X-Ts: "\${timestamp}"
          X-Ip: "\${clientIp}"
          X-Route: "\${route}"
          X-Method: "\${method}"
          X-Rt: "\${responseTime}"
          X-Static: "plain value"
        remove: [x-remove-me]
      response:
        set:
          X-Served-By: "gw \${route} \${method}"
          X-Response-Time: "\${responseTime}ms"
        remove: [x-upstream-secret]
  - id: hdr-map
    path: /hm/*
    upstream: main
    headers:
      response:
        set:
          X-Served-By: "gw \${route} \${method}"
          X-Response-Time: "\${responseTime}ms"
        remove: [x-upstream-secret]
    # A second response hook: this route's head goes through the header map, hdr's through the raw list.
    transform:
      response:
        body:
          exclude: [password]
  - id: tr
    path: /t/*
    upstream: main
    transform:
      request:
        query: { version: "2", "added": "a b&c" }
        headers:
          add: { X-Added: "yes \${method}", X-Keep: "gateway" }
          remove: [x-drop]
      response:
        body:
          exclude: [password, user.token, items.secret]
`,
    });
  });

  after(async () => {
    await gateway?.stop();
    await upstream?.close();
  });

  const get = (path: string, init: Parameters<typeof request>[1] = {}) => request(`${gateway.url}${path}`, init);

  test('every request variable is rendered into the upstream request; set and remove apply', async () => {
    const res = await get('/h/echo', { headers: { 'x-correlation-id': 'trace-1', 'x-remove-me': 'gone', 'x-static': 'client' } });
    assert.equal(res.status, 200);
    const seen = res.json<Echo>().headers;
    assert.equal(seen['x-req'], 'id=trace-1');
    assert.match(seen['x-ts'] as string, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.equal(seen['x-ip'], '127.0.0.1');
    assert.equal(seen['x-route'], 'hdr');
    assert.equal(seen['x-method'], 'GET');
    assert.match(seen['x-rt'] as string, /^\d+$/);
    assert.equal(seen['x-static'], 'plain value');
    assert.equal(seen['x-remove-me'], undefined);
  });

  test('response rules: set with variables, remove an upstream header', async () => {
    const res = await get('/h/json', { method: 'GET' });
    assert.equal(res.headers['x-served-by'], 'gw hdr GET');
    assert.match(res.headers['x-response-time'] as string, /^\d+ms$/);
    assert.equal(res.headers['x-upstream-secret'], undefined);
    assert.equal(res.json<typeof DOC>().password, 'hunter2', 'no transform on this route');
  });

  test('response rules edit the head the same whether applied to the raw list (their route\'s only hook) or to the map', async () => {
    for (const [path, route] of [['/h/shaped-head', 'hdr'], ['/hm/shaped-head', 'hdr-map']] as const) {
      const res = await get(path, { headers: { 'x-correlation-id': 'client-id' } });
      assert.equal(res.status, 200, path);
      assert.equal(res.text, 'shaped');
      const values = (name: string): string[] => {
        const out: string[] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) if (res.rawHeaders[i]?.toLowerCase() === name) out.push(res.rawHeaders[i + 1] as string);
        return out;
      };
      assert.deepEqual(values('x-upstream-secret'), [], `${path}: removed in every case and repetition`);
      assert.deepEqual(values('x-served-by'), [`gw ${route} GET`], `${path}: set once, the upstream's value gone`);
      assert.equal(values('x-response-time').length, 1, path);
      assert.match(values('x-response-time')[0] as string, /^\d+ms$/);
      assert.deepEqual(values('x-correlation-id'), ['client-id'], `${path}: the gateway's correlation id only`);
      assert.deepEqual(values('x-hop'), [], `${path}: named by Connection, so hop-by-hop`);
      assert.deepEqual(values('server'), ['up'], path);
      assert.deepEqual(values('x-kept'), ['k'], path);
      assert.deepEqual(values('set-cookie'), ['a=1', 'b=2'], path);
      assert.deepEqual(values('content-type'), ['text/plain'], path);
    }
  });

  test('a variable never carries CR/LF: an unsafe correlation id is replaced before rendering', async () => {
    // node refuses raw CR/LF in a header, so send the closest thing a client can: a value the
    // correlation policy rejects; the rendered header holds only the generated safe id.
    const res = await get('/h/echo', { headers: { 'x-correlation-id': 'a b\t<script>' } });
    assert.match(res.json<Echo>().headers['x-req'] as string, /^id=req-\d+-[0-9a-f]+$/);
  });

  test('query parameters are added and overridden, others kept byte for byte', async () => {
    const res = await get('/t/echo?version=1&keep=%2Fx&Version=3');
    const url = res.json<Echo>().url;
    assert.equal(url, '/base/echo?keep=%2Fx&Version=3&version=2&added=a%20b%26c');
    assert.equal((await get('/t/echo')).json<Echo>().url, '/base/echo?version=2&added=a%20b%26c');
  });

  test('request headers: remove, and add only when the client did not send the header', async () => {
    const res = await get('/t/echo', { headers: { 'x-drop': 'secret', 'x-keep': 'client', 'accept-encoding': 'gzip' } });
    const seen = res.json<Echo>().headers;
    assert.equal(seen['x-drop'], undefined);
    assert.equal(seen['x-added'], 'yes GET');
    assert.equal(seen['x-keep'], 'client');
    assert.equal(seen['accept-encoding'], undefined, 'fields can only be removed from an unencoded body');
  });

  test('JSON body: top-level, nested and per-array-item fields are removed; Content-Length fixed; ETag dropped', async () => {
    for (const path of ['/t/json', '/t/chunked']) {
      const res = await get(path);
      assert.equal(res.status, 200);
      assert.deepEqual(res.json(), { id: 7, user: { name: 'ann', keep: true }, items: [{ id: 1 }, { id: 2 }] });
      assert.equal(Number(res.headers['content-length']), res.body.length);
      assert.equal(res.headers.etag, undefined);
    }
  });

  test('structured +json types are transformed with their status kept', async () => {
    const res = await get('/t/problem');
    assert.equal(res.status, 422);
    assert.deepEqual(res.json(), { title: 'x' });
  });

  test('non-JSON bodies stream untouched, whatever their size', async () => {
    const res = await get('/t/text');
    assert.equal(res.status, 200);
    assert.equal(res.text, 'password=hunter2 '.repeat(300));
    assert.equal(Number(res.headers['content-length']), res.body.length);
  });

  test('oversized, broken or encoded JSON fails closed with 502 RESPONSE_TRANSFORM_FAILED (never leaks excluded fields)', async () => {
    for (const path of ['/t/big', '/t/big-chunked', '/t/broken', '/t/gzip']) {
      const res = await get(path);
      assert.equal(res.status, 502, path);
      assert.equal(res.json().message, 'Upstream response could not be transformed');
      assert.ok(!res.text.includes('password'));
    }
    await gateway.waitForOutput('response body transform refused');
  });
});
