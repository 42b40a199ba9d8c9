import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type http from 'node:http';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { start } from '@gateway/data-plane/start';
import type { RunningDataPlane } from '@gateway/data-plane/data-plane-options';
import { makeTempDir, rawRequest, rawStatus, request, startTextUpstream, type LoopbackUpstream } from '@gateway/testing';

/*
 * One-process mode: a plain node handler mounted on /api and /admin stands in for the control
 * plane's handler. Requests under the prefixes reach it untouched; everything else is proxied.
 */
describe('mount: prefixes handed to another handler on the proxy port', () => {
  let upstream: LoopbackUpstream;
  let plane: RunningDataPlane;
  let base: string;
  const seen: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders }> = [];
  const dir = makeTempDir();

  before(async () => {
    upstream = await startTextUpstream('proxied');
    const configPath = path.join(dir.path, 'proxy.yml');
    writeFileSync(
      configPath,
      `version: "1.0.0"\nproxy:\n  maxHeaderSize: 2048\nroutes:\n  - { path: /apis, upstream: "${upstream.origin}" }\n  - { path: /app/*, upstream: "${upstream.origin}" }\n`,
    );
    plane = await start({
      configPath,
      dataDir: dir.path,
      host: '127.0.0.1',
      port: 0,
      logLevel: 'silent',
      mount: {
        prefixes: ['/api', '/admin'],
        handler: (req, res) => {
          const chunks: Buffer[] = [];
          req.on('data', (c: Buffer) => chunks.push(c));
          req.on('end', () => {
            seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
            res.writeHead(200, { 'content-type': 'application/json', 'x-mounted': 'yes' });
            res.end(JSON.stringify({ url: req.url, body: Buffer.concat(chunks).toString('utf8') }));
          });
        },
      },
    });
    base = `http://127.0.0.1:${plane.port}`;
  });

  after(async () => {
    await plane?.close();
    await upstream?.close();
    dir.remove();
  });

  test('the prefix, paths below it and the prefix with a query go to the mounted handler untouched', async () => {
    for (const url of ['/api', '/api/routes?limit=5', '/api?x=1', '/admin', '/admin/users/7']) {
      const res = await request(`${base}${url}`, { method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json', 'x-correlation-id': 'client-id' } });
      assert.equal(res.status, 200, url);
      assert.equal(res.headers['x-mounted'], 'yes');
      assert.deepEqual(res.json(), { url, body: '{"a":1}' });
      // No gateway policy ran: no version headers, no correlation echo, no forwarding headers.
      assert.equal(res.headers['x-api-version'], undefined);
      assert.equal(res.headers['x-correlation-id'], undefined);
    }
    const last = seen.at(-1);
    assert.equal(last?.headers['x-forwarded-for'], undefined);
    assert.equal(last?.headers['x-correlation-id'], 'client-id');
  });

  test('everything else goes through the data plane: routes, 404s and the ops endpoints', async () => {
    const proxied = await request(`${base}/apis`);
    assert.equal(proxied.text, 'proxied', '/apis is not under /api');
    assert.equal((await request(`${base}/app/x`)).text, 'proxied');
    const missing = await request(`${base}/administrator`);
    assert.equal(missing.status, 404);
    assert.ok(missing.headers['x-api-version'], 'gateway responses keep their headers');
    assert.equal((await request(`${base}/health/ready`)).status, 200);
    const before = seen.length;
    await request(`${base}/metrics`);
    assert.equal(seen.length, before);
  });

  test('the server limits still apply to mounted paths', async () => {
    const reply = await rawRequest(plane.port, `GET /api/x HTTP/1.1\r\nHost: a\r\nX-Big: ${'a'.repeat(4096)}\r\n\r\n`);
    assert.equal(rawStatus(reply), 431);
  });
});
