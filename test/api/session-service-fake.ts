import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StoredSession {
  user: { id: string; email: string; role: string };
  expiresAt: string;
  nameId?: string;
  sessionIndex?: string;
  revoked: boolean;
}

/**
 * A loopback fake of the external session service, speaking the control plane's part of the
 * contract in docs/edge-policies.md: POST /sessions, GET /sessions/{id}, DELETE /sessions/{id}.
 * `mode` makes it answer normally, refuse connections (down) or hold every request (slow);
 * `apiKey` makes it require the control plane's credential.
 */
export class FakeSessionService {
  readonly sessions = new Map<string, StoredSession>();
  readonly calls: string[] = [];
  readonly tenants: Array<string | undefined> = [];
  readonly authorizations: Array<string | undefined> = [];
  /** When set, every call must carry `Authorization: Bearer <apiKey>`; others are answered 401. */
  apiKey: string | undefined;
  mode: 'up' | 'down' | 'slow' = 'up';
  private readonly held: http.ServerResponse[] = [];
  private readonly server = http.createServer((req, res) => this.handle(req, res));
  url = '';

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/api`;
  }

  close(): Promise<void> {
    for (const res of this.held) res.destroy();
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    if (this.mode === 'down') return void req.socket.destroy();
    if (this.mode === 'slow') return void this.held.push(res);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      this.calls.push(`${req.method} ${req.url}`);
      this.tenants.push(req.headers['x-tenant-id'] as string | undefined);
      this.authorizations.push(req.headers.authorization);
      const json = (status: number, body?: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(body === undefined ? undefined : JSON.stringify(body));
      if (this.apiKey !== undefined && req.headers.authorization !== `Bearer ${this.apiKey}`) return json(401, { error: 'bad credential' });
      const id = /^\/api\/sessions\/([^/]+)$/.exec(req.url ?? '')?.[1];
      if (req.method === 'POST' && req.url === '/api/sessions') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Omit<StoredSession, 'revoked'>;
        const sessionId = `ext-${randomBytes(12).toString('hex')}`;
        this.sessions.set(sessionId, { ...body, revoked: false });
        return json(201, { sessionId, expiresAt: body.expiresAt });
      }
      const session = id === undefined ? undefined : this.sessions.get(decodeURIComponent(id));
      if (req.method === 'GET' && id !== undefined) {
        if (session === undefined || session.revoked) return json(200, { valid: false });
        return json(200, { valid: true, user: session.user, expiresAt: session.expiresAt });
      }
      if (req.method === 'DELETE' && id !== undefined) {
        if (session === undefined) return json(404, { error: 'unknown session' });
        session.revoked = true;
        return json(204);
      }
      return json(404, { error: 'not found' });
    });
  }
}
