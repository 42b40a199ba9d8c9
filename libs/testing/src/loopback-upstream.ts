import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  rawHeaders: string[];
  body: Buffer;
}

export type UpstreamHandler = (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) => void;

export interface LoopbackUpstream {
  /** `http://127.0.0.1:<port>` (or https). */
  readonly origin: string;
  readonly port: number;
  /** Every request received, in arrival order. */
  readonly requests: RecordedRequest[];
  /** Open sockets right now (keep-alive reuse and abort tests read it). */
  readonly openSockets: number;
  /** Requests whose client went away before the response ended. */
  readonly aborted: number;
  close(): Promise<void>;
}

export interface UpstreamOptions {
  handler?: UpstreamHandler;
  /** Serve TLS with this key and certificate. */
  tls?: { key: string; cert: string };
  /** Do not buffer the body before calling the handler (streaming tests). */
  streaming?: (req: http.IncomingMessage, res: http.ServerResponse) => void;
  keepAliveTimeout?: number;
  /** Listen address (default 127.0.0.1; any 127.x.y.z works on Linux: two upstreams on one port). */
  host?: string;
  /** Default an ephemeral port. */
  port?: number;
}

/** Answers `{method, url, headers, body}` as JSON: what the upstream saw. */
export const echoHandler: UpstreamHandler = (req, res, body) => {
  const payload = JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body: body.toString('utf8') });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
};

/** A real HTTP(S) server on 127.0.0.1 (or `host`) with an ephemeral port (or `port`). */
export async function startUpstream(options: UpstreamOptions = {}): Promise<LoopbackUpstream> {
  const requests: RecordedRequest[] = [];
  const sockets = new Set<import('node:net').Socket>();
  let aborted = 0;
  const handler = options.handler ?? echoHandler;
  const listener = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    res.on('close', () => {
      if (!res.writableFinished) aborted += 1;
    });
    if (options.streaming) {
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, rawHeaders: req.rawHeaders, body: Buffer.alloc(0) });
      options.streaming(req, res);
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', () => undefined);
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, rawHeaders: req.rawHeaders, body });
      handler(req, res, body);
    });
  };
  const server = options.tls ? https.createServer({ key: options.tls.key, cert: options.tls.cert }, listener) : http.createServer(listener);
  server.keepAliveTimeout = options.keepAliveTimeout ?? 5000;
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, resolve);
  });
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `${options.tls ? 'https' : 'http'}://${host}:${port}`,
    port,
    requests,
    get openSockets() {
      return sockets.size;
    },
    get aborted() {
      return aborted;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A port that refuses connections: bound then closed. */
export async function refusedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** An upstream that answers every request with the same text (tells which upstream served). */
export function startTextUpstream(text: string): Promise<LoopbackUpstream> {
  return startUpstream({ handler: (_req, res) => res.end(text) });
}

/** A promise with its resolve and reject exposed (lets a test and an upstream handler signal each other). */
export interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(error: Error): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Settles like `promise`, or rejects with `message` after `ms` (so a test never hangs on a signal that never comes). */
export function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${message} (waited ${ms} ms)`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
