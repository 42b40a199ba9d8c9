import { createHash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { HEARTBEAT_INTERVAL_MS, InProcessBus, ROUTE_CHANGES_CHANNEL, type MessageBus, type RouteChangeMessage, type RouteSnapshot } from '@gateway/events';
import { normalizeRoute, type Route } from '@gateway/route-model';

/**
 * STAND-IN for the control plane, used by test/cluster until the lead composes the real one: it
 * holds a route set with a configuration version, publishes change messages and heartbeats on an
 * in-process bus, and answers snapshots (in-process, or over HTTP like the real internal endpoint).
 * It can be taken "down" (snapshots fail, heartbeats stop) and can change routes without publishing
 * (a lost message), which is what the data plane's follower must survive.
 */
export class StandInControlPlane {
  version = 0;
  snapshotsServed = 0;
  private readonly routes = new Map<string, Route>();
  private down = false;
  private heartbeat: NodeJS.Timeout | undefined;
  private server: http.Server | undefined;
  private readonly sockets = new Set<Socket>();

  /** `bus`: where it publishes; in-process by default, a Redis-backed test bus in the Redis tests. */
  constructor(readonly bus: MessageBus = new InProcessBus()) {
    this.heartbeat = setInterval(() => {
      if (!this.down) void this.publish({ kind: 'heartbeat', version: this.version });
    }, HEARTBEAT_INTERVAL_MS);
  }

  /** The data plane's `fetchSnapshot`, in-process. */
  readonly fetchSnapshot = async (): Promise<RouteSnapshot> => {
    if (this.down) throw new Error('connect ECONNREFUSED (stand-in control plane is down)');
    return this.snapshot();
  };

  snapshot(): RouteSnapshot {
    this.snapshotsServed += 1;
    return { version: this.version, createdAt: new Date().toISOString(), routes: [...this.routes.values()], upstreams: [] };
  }

  /** Creates or changes a route and publishes it (unless `publish: false`: the message is lost). */
  async upsert(input: Record<string, unknown>, options: { publish?: boolean } = {}): Promise<Route> {
    const result = normalizeRoute(input, { source: 'api' });
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    const route = { ...result.value, createdAt: new Date().toISOString() };
    this.version += 1;
    if (route.enabled) this.routes.set(route.id, route);
    else this.routes.delete(route.id);
    if (options.publish !== false) await this.publish({ kind: 'upserted', version: this.version, route });
    return route;
  }

  async remove(routeId: string, options: { publish?: boolean } = {}): Promise<void> {
    this.routes.delete(routeId);
    this.version += 1;
    if (options.publish !== false) await this.publish({ kind: 'deleted', version: this.version, routeId });
  }

  publish(message: RouteChangeMessage): Promise<void> {
    return this.bus.publish(ROUTE_CHANGES_CHANNEL, message);
  }

  /** Down: snapshots fail (in-process and HTTP: 503) and no heartbeat is published. */
  setDown(down: boolean): void {
    this.down = down;
  }

  /** The real endpoint's contract: GET /internal/cluster/snapshot, Bearer token (constant-time), bare JSON. */
  async listen(token: string, port = 0): Promise<string> {
    const expected = createHash('sha256').update(token).digest();
    this.server = http.createServer((req, res) => {
      if (req.method !== 'GET' || req.url !== '/internal/cluster/snapshot') {
        res.writeHead(404).end();
        return;
      }
      const header = req.headers.authorization ?? '';
      const given = createHash('sha256').update(header.startsWith('Bearer ') ? header.slice(7) : '').digest();
      if (!timingSafeEqual(given, expected)) {
        res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"Unauthorized"}');
        return;
      }
      if (this.down) {
        res.writeHead(503).end();
        return;
      }
      const body = JSON.stringify(this.snapshot());
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
    });
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => this.server?.listen(port, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Stops the HTTP endpoint (connections refused from now on). */
  async stopListening(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  async close(): Promise<void> {
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    await this.stopListening();
    await this.bus.close();
  }
}

/** Polls `check` until it is true or `ms` passes (no timed assertion: the bound is the requirement). */
export async function eventually(check: () => Promise<boolean> | boolean, what: string, ms = 5000, every = 20): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, every));
  }
}
