// The loopback upstream: GET /bytes/<n> answers 200 with an n-byte body (n <= 1 MiB), from a
// buffer built once per size, with Content-Length; GET /r/... (where the generated many-routes
// table forwards, @gateway/testing manyRoutesConfig) answers 100 bytes. Anything else is 404. It runs in its own process
// so its CPU is not charged to the proxy or the load generator.
import http from 'node:http';
import { listenAndAnnounce } from './announce';

const MAX_BODY = 1024 * 1024;
const bodies = new Map<number, { body: Buffer; length: string }>();

function bodyOf(size: number): { body: Buffer; length: string } {
  let entry = bodies.get(size);
  if (!entry) {
    entry = { body: Buffer.alloc(size, 'x'), length: String(size) };
    bodies.set(size, entry);
  }
  return entry;
}

const server = http.createServer((req, res) => {
  const url = req.url ?? '';
  const size = url.startsWith('/bytes/') ? Number.parseInt(url.slice('/bytes/'.length), 10) : url.startsWith('/r/') ? 100 : Number.NaN;
  if (!Number.isSafeInteger(size) || size < 0 || size > MAX_BODY) {
    res.writeHead(404, { 'content-length': '0' });
    res.end();
    return;
  }
  const { body, length } = bodyOf(size);
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': length });
  res.end(body);
});
// Longer than any pause between two measurements of the same proxy, so pooled upstream sockets
// are not closed under the proxies' feet between rounds.
server.keepAliveTimeout = 60_000;
server.headersTimeout = 65_000;
listenAndAnnounce(server);
