// The minimal forwarder of forwarder.ts with undici's Pool as its upstream client instead of
// http.request (issue 19: the yardstick for our own client):
//   node undici-forwarder.js <upstream origin> [<path prefix to strip>]
// pool.stream() writes the upstream body straight into the client response (undici's proxy path,
// no Readable per request). Same extras as forwarder.ts: 502 on upstream errors, the upstream
// request cancelled when the client goes away.
import http from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { Pool } from 'undici';
import { listenAndAnnounce } from './announce';
import { forwarderTarget, HOP_BY_HOP, upstreamPath } from './forwarder-target';

const target = forwarderTarget('undici-forwarder.js');
const pool = new Pool(target.origin.origin, { connections: 256, pipelining: 1, keepAliveTimeout: 4000 });

/** undici refuses connection-scoped fields; content-length is kept for request bodies. */
function requestHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || (HOP_BY_HOP.has(name) && name !== 'content-length') || name === 'expect') continue;
    out[name] = value;
  }
  return out;
}

const server = http.createServer((req, res) => {
  const controller = new AbortController();
  const hasBody = req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
  pool.stream(
    {
      path: upstreamPath(req.url, target.prefix),
      method: req.method as 'GET',
      headers: requestHeaders(req.headers),
      body: hasBody ? req : null,
      signal: controller.signal,
    },
    ({ statusCode, headers }) => {
      const out: Record<string, string | string[]> = {};
      for (const name in headers) {
        const value = headers[name];
        if (value !== undefined && (!HOP_BY_HOP.has(name) || name === 'content-length')) out[name] = value;
      }
      res.writeHead(statusCode, out);
      return res;
    },
    (error) => {
      if (error === null) return;
      if (res.headersSent) res.destroy();
      else {
        res.writeHead(502, { 'content-length': '0' });
        res.end();
      }
    },
  );
  res.on('close', () => {
    if (!res.writableFinished) controller.abort();
  });
});
listenAndAnnounce(server);
