// The minimal node:http forwarder, the baseline the data plane is compared with:
//   node forwarder.js <upstream origin> [<path prefix to strip>]
// http.createServer + http.request through one keep-alive Agent, request and response piped,
// status and headers copied as they are. The only extras are what any proxy needs to stay
// correct under the load generator: a 502 on upstream errors, and cancelling the upstream request
// when the client goes away (autocannon drops its connections mid-request at the end of a run).
import http from 'node:http';
import { listenAndAnnounce } from './announce';

const [origin, prefix = ''] = process.argv.slice(2);
if (!origin) {
  process.stderr.write('usage: forwarder.js <upstream origin> [<prefix>]\n');
  process.exit(2);
}
const upstream = new URL(origin);
const hostname = upstream.hostname;
const port = Number(upstream.port || 80);
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

const server = http.createServer((req, res) => {
  let path = req.url ?? '/';
  if (prefix !== '' && path.startsWith(prefix)) path = path.slice(prefix.length) || '/';
  const upstreamRequest = http.request({ hostname, port, method: req.method, path, headers: req.headers, agent }, (upstreamResponse) => {
    res.writeHead(upstreamResponse.statusCode ?? 502, upstreamResponse.headers);
    upstreamResponse.pipe(res);
  });
  upstreamRequest.on('error', () => {
    if (res.headersSent) {
      res.destroy();
    } else {
      res.writeHead(502, { 'content-length': '0' });
      res.end();
    }
  });
  res.on('close', () => {
    if (!res.writableFinished) upstreamRequest.destroy();
  });
  req.pipe(upstreamRequest);
});
listenAndAnnounce(server);
