import http from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import { deferred, withTimeout } from '@gateway/testing';

/* A WebSocket echo upstream and client connections for tests through the gateway (the `ws` package). */

export type EchoUpstream = Awaited<ReturnType<typeof startEchoUpstream>>;

/** An echo upstream that records the close code each of its connections got, and answers plain requests. */
export async function startEchoUpstream(): Promise<{
  origin: string;
  closes: Array<{ url: string; code: number }>;
  upgrades: string[];
  /** The headers of each handshake, in order. */
  handshakes: http.IncomingHttpHeaders[];
  plainHeaders: http.IncomingHttpHeaders[];
  close(): Promise<void>;
}> {
  const closes: Array<{ url: string; code: number }> = [];
  const upgrades: string[] = [];
  const handshakes: http.IncomingHttpHeaders[] = [];
  const plainHeaders: http.IncomingHttpHeaders[] = [];
  // Plain requests get `plain:<their body>`.
  const server = http.createServer((req, res) => {
    plainHeaders.push(req.headers);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => res.end(`plain:${Buffer.concat(chunks).toString()}`));
  });
  const wss = new WebSocketServer({ server });
  wss.on('connection', (socket, req) => {
    upgrades.push(req.url ?? '');
    handshakes.push(req.headers);
    socket.on('message', (data, isBinary) => socket.send(data, { binary: isBinary }));
    socket.on('close', (code) => closes.push({ url: req.url ?? '', code }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    closes,
    upgrades,
    handshakes,
    plainHeaders,
    close: async () => {
      for (const client of wss.clients) client.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface OpenedSocket {
  socket: WebSocket;
  closed: Promise<number>;
  next(): Promise<WebSocket.RawData>;
}

/** Opens a client connection; rejects with the status and body when the handshake is refused. */
export function openSocket(url: string): Promise<OpenedSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    const closed = deferred<number>();
    const queue: WebSocket.RawData[] = [];
    const waiting: Array<(data: WebSocket.RawData) => void> = [];
    socket.on('message', (data) => {
      const take = waiting.shift();
      if (take) take(data);
      else queue.push(data);
    });
    socket.on('close', (code) => closed.resolve(code));
    socket.on('unexpected-response', (_req, res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => reject(Object.assign(new Error(`handshake refused: ${res.statusCode} ${body}`), { status: res.statusCode, body })));
    });
    socket.on('error', reject);
    socket.on('open', () =>
      resolve({
        socket,
        closed: closed.promise,
        next: () => {
          const queued = queue.shift();
          return queued !== undefined ? Promise.resolve(queued) : withTimeout(new Promise((r) => waiting.push(r)), 10_000, 'no message came back');
        },
      }),
    );
  });
}

