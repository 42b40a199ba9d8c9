import http2 from 'node:http2';
import https from 'node:https';
import tls from 'node:tls';
import { withTimeout, type GatewayProcess } from '@gateway/testing';

/* Clients for the HTTPS listener: raw handshakes, HTTPS/1.1 requests and HTTP/2 sessions (test certificates are self-signed). */

/** The HTTPS port the gateway logged in its "gateway listening" line. */
export function tlsPortOf(gateway: GatewayProcess): number {
  const line = gateway.output.find((l) => l.includes('gateway listening'));
  const port = line === undefined ? undefined : (JSON.parse(line) as { tlsPort?: number }).tlsPort;
  if (port === undefined) throw new Error(`no tlsPort in the listening line:\n${gateway.output.join('\n')}`);
  return port;
}

export interface Handshake {
  /** The served certificate's common name. */
  commonName: string;
  fingerprint: string;
  protocol: string | null;
  alpn: string | false;
}

/** One TLS handshake; rejects with the handshake error. */
export function handshake(port: number, options: tls.ConnectionOptions = {}): Promise<Handshake> {
  return withTimeout(
    new Promise((resolve, reject) => {
      const socket = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false, ...options }, () => {
        const peer = socket.getPeerCertificate();
        const outcome = { commonName: String(peer.subject?.CN ?? ''), fingerprint: peer.fingerprint256, protocol: socket.getProtocol(), alpn: socket.alpnProtocol ?? false };
        socket.end();
        resolve(outcome);
      });
      socket.once('error', reject);
    }),
    10_000,
    'TLS handshake',
  );
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** An HTTPS/1.1 request (through `agent` when given, to keep its connections alive). */
export function httpsRequest(port: number, path: string, options: https.RequestOptions & { body?: string } = {}): Promise<Answer> {
  return withTimeout(
    new Promise((resolve, reject) => {
      const req = https.request({ host: '127.0.0.1', port, path, rejectUnauthorized: false, ...options }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      });
      req.once('error', reject);
      req.end(options.body);
    }),
    15_000,
    `HTTPS ${path}`,
  );
}

export function h2Connect(port: number, options: http2.SecureClientSessionOptions = {}): Promise<http2.ClientHttp2Session> {
  return withTimeout(
    new Promise((resolve, reject) => {
      const session = http2.connect(`https://127.0.0.1:${port}`, { rejectUnauthorized: false, ...options });
      // Once the server's SETTINGS are in: its limits can be read at once.
      session.once('remoteSettings', () => resolve(session));
      session.once('error', reject);
    }),
    10_000,
    'HTTP/2 connect',
  );
}

/** One HTTP/2 request; `body` chunks are sent as DATA frames without a content-length. */
export function h2Request(session: http2.ClientHttp2Session, headers: http2.OutgoingHttpHeaders, body?: string | string[]): Promise<Answer> {
  return withTimeout(
    new Promise((resolve, reject) => {
      const stream = session.request({ ':method': 'GET', ...headers }, { endStream: body === undefined });
      let answer: Omit<Answer, 'body'> | undefined;
      const chunks: Buffer[] = [];
      stream.on('response', (head) => {
        const { ':status': status, ...rest } = head;
        answer = { status: Number(status), headers: rest as Answer['headers'] };
      });
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => (answer === undefined ? reject(new Error(`stream ended without a response (rst ${stream.rstCode})`)) : resolve({ ...answer, body: Buffer.concat(chunks).toString() })));
      stream.on('error', reject);
      if (body !== undefined) {
        for (const chunk of Array.isArray(body) ? body : [body]) stream.write(chunk);
        stream.end();
      }
    }),
    15_000,
    `HTTP/2 ${String(headers[':method'] ?? 'GET')} ${String(headers[':path'])}`,
  );
}
