// The minimal forwarder of forwarder.ts with the data plane's own lean upstream client
// (apps/data-plane/src/engine/upstream-client) instead of http.request:
//   node lean-forwarder.js <upstream origin> [<path prefix to strip>]
// The bench may not import an app (module boundaries: tools depend on shared libs only), so the
// client is loaded from the data plane's build output at run time, like the gateway the other
// scenarios start as a process; the few members used are typed here.
import http from 'node:http';
import path from 'node:path';
import { REPO_ROOT } from '@gateway/testing';
import { listenAndAnnounce } from './announce';
import { forwarderTarget, HOP_BY_HOP, upstreamPath } from './forwarder-target';

interface LeanHead {
  readonly statusCode: number;
  readonly rawHeaders: string[];
}
interface LeanHandler {
  onResponse(head: LeanHead): void;
  onData(chunk: Buffer): void;
  onEnd(trailers: string[]): void;
  onError(error: Error): void;
  onDrain?(): void;
}
interface LeanExchange {
  write(chunk: Buffer): boolean;
  end(chunk?: Buffer): void;
  pause(): void;
  resume(): void;
  abort(): void;
}
interface LeanPool {
  request(request: { method: string; path: string; headers: string[]; streamedBody?: number | 'chunked' }, handler: LeanHandler): LeanExchange;
}
type LeanPoolClass = new (options: { host: string; port: number; maxConnections?: number; keepAliveMs?: number }) => LeanPool;

// eslint-disable-next-line @typescript-eslint/no-require-imports -- run-time load of an app's build output, see above
const { UpstreamPool } = require(path.join(REPO_ROOT, 'apps/data-plane/dist/engine/upstream-client/upstream-pool.js')) as { UpstreamPool: LeanPoolClass };

const target = forwarderTarget('lean-forwarder.js');
const pool = new UpstreamPool({ host: target.hostname, port: target.port, maxConnections: 256, keepAliveMs: 4000 });

/** One per request: the client calls these methods, so no closures are made per request. */
class Forward implements LeanHandler {
  exchange: LeanExchange | undefined;
  done = false;

  constructor(
    private readonly req: http.IncomingMessage,
    private readonly res: http.ServerResponse,
  ) {}

  onResponse(head: LeanHead): void {
    const raw = head.rawHeaders;
    const out: string[] = [];
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i] as string;
      if (!HOP_BY_HOP.has(name.toLowerCase()) || name.toLowerCase() === 'content-length') out.push(name, raw[i + 1] as string);
    }
    this.res.writeHead(head.statusCode, out);
  }

  onData(chunk: Buffer): void {
    if (!this.res.write(chunk)) {
      this.exchange?.pause();
      this.res.once('drain', () => this.exchange?.resume());
    }
  }

  onEnd(): void {
    this.done = true;
    this.res.end();
  }

  onError(): void {
    this.done = true;
    if (this.res.headersSent) this.res.destroy();
    else {
      this.res.writeHead(502, { 'content-length': '0' });
      this.res.end();
    }
  }

  onDrain(): void {
    this.req.resume();
  }
}

function requestHeaders(raw: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    if (!HOP_BY_HOP.has(name.toLowerCase())) out.push(name, raw[i + 1] as string);
  }
  return out;
}

const server = http.createServer((req, res) => {
  const forward = new Forward(req, res);
  const length = req.headers['content-length'];
  const streamedBody = req.headers['transfer-encoding'] !== undefined ? 'chunked' : length !== undefined && length !== '0' ? Number(length) : undefined;
  const exchange = pool.request({ method: req.method ?? 'GET', path: upstreamPath(req.url, target.prefix), headers: requestHeaders(req.rawHeaders), streamedBody }, forward);
  forward.exchange = exchange;
  if (streamedBody !== undefined) {
    req.on('data', (chunk: Buffer) => {
      if (!exchange.write(chunk)) req.pause();
    });
    req.on('end', () => exchange.end());
  }
  res.on('close', () => {
    if (!forward.done) exchange.abort();
  });
});
listenAndAnnounce(server);
