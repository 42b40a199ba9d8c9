import http from 'node:http';
import net from 'node:net';

export interface ClientResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  rawHeaders: string[];
  body: Buffer;
  text: string;
  json<T = Record<string, unknown>>(): T;
}

export interface ClientRequest {
  method?: string;
  headers?: http.OutgoingHttpHeaders;
  body?: string | Buffer;
  /** A fresh connection per request unless an agent is given. */
  agent?: http.Agent | false;
  timeoutMs?: number;
}

/**
 * node:http rather than fetch: tests need to send exact headers (a second Host, a spoofed
 * X-Forwarded-For) that fetch would rewrite or refuse.
 */
export function request(url: string, options: ClientRequest = {}): Promise<ClientResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: options.method ?? 'GET', headers: options.headers, agent: options.agent ?? false });
    req.setTimeout(options.timeoutMs ?? 15000, () => req.destroy(new Error(`request to ${url} timed out`)));
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        const text = body.toString('utf8');
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          rawHeaders: res.rawHeaders,
          body,
          text,
          json: <T>() => JSON.parse(text) as T,
        });
      });
    });
    req.end(options.body);
  });
}

/** Writes bytes as given to a TCP socket and returns everything the server sent until it closed or went quiet. */
export function rawRequest(port: number, payload: string, options: { idleMs?: number; host?: string } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, options.host ?? '127.0.0.1');
    const chunks: Buffer[] = [];
    let idle: NodeJS.Timeout | undefined;
    const finish = (): void => {
      clearTimeout(idle);
      socket.destroy();
      resolve(Buffer.concat(chunks).toString('latin1'));
    };
    const arm = (): void => {
      clearTimeout(idle);
      idle = setTimeout(finish, options.idleMs ?? 1500);
    };
    socket.on('connect', () => {
      socket.write(payload);
      arm();
    });
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      arm();
    });
    socket.on('end', finish);
    socket.on('close', finish);
    socket.on('error', (err) => (chunks.length ? finish() : reject(err)));
  });
}

/** Status code of the first response in a raw HTTP reply, or 0 when there is none. */
export function rawStatus(reply: string): number {
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(reply);
  return match ? Number(match[1]) : 0;
}
