import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import type { Route } from '@gateway/route-model';

/** Idle upstream sockets close before common servers' own 5 s keep-alive timeout (node's default). */
export const DEFAULT_UPSTREAM_KEEP_ALIVE_MS = 4000;
/** How often idle upstream sockets are looked at; a socket closes within one tick of its deadline. */
const IDLE_SWEEP_INTERVAL_MS = 250;

/** Where a route forwards to, parsed once when routes load. */
export interface UpstreamTarget {
  readonly origin: string;
  readonly hostname: string;
  readonly port: number;
  /** `Host` sent upstream: the upstream's authority (the client's goes in X-Forwarded-Host). */
  readonly hostHeader: string;
  /** Path of the upstream URL, replacing the route's literal prefix (decision 15). */
  readonly basePath: string;
  readonly agent: http.Agent;
  readonly request: typeof http.request;
  /** TLS server name when the address dialled is a resolved IP (see upstreams/upstream-endpoint.ts). */
  readonly servername?: string;
}

const IDLE_TICKS = Symbol('gateway.idleTicks');
type PooledSocket = Socket & { [IDLE_TICKS]?: number };

interface PooledAgent {
  agent: http.Agent;
  /** Sweeps a free socket survives before it is closed. */
  maxIdleTicks: number;
}

/** Agent 'free' listener: a socket back in the pool starts its idle count again. */
function onSocketFree(socket: PooledSocket): void {
  socket[IDLE_TICKS] = 0;
}

/**
 * Keep-alive agents per upstream origin and idle timeout, shared by every route that points
 * there and kept across reloads, so a reload never drops warm connections.
 *
 * Idle sockets are closed by a periodic sweep rather than node's agent `timeout`, which re-arms a
 * socket timer on every request: on the hot path that costs more than the sweep does in total.
 */
export class UpstreamAgentPool {
  private readonly agents = new Map<string, PooledAgent>();
  private readonly sweeper: NodeJS.Timeout;

  constructor() {
    this.sweeper = setInterval(() => this.sweepIdleSockets(), IDLE_SWEEP_INTERVAL_MS);
    this.sweeper.unref();
  }

  targetFor(route: Route): UpstreamTarget {
    const url = new URL(route.upstream);
    const secure = url.protocol === 'https:';
    const keepAlive = route.timeout.keepAlive ?? DEFAULT_UPSTREAM_KEEP_ALIVE_MS;
    const key = `${url.origin}|${keepAlive}`;
    let pooled = this.agents.get(key);
    if (pooled === undefined) {
      const options: http.AgentOptions = { keepAlive: true, maxFreeSockets: 256, scheduling: 'lifo' };
      const agent = secure ? new https.Agent(options) : new http.Agent(options);
      agent.on('free', onSocketFree);
      pooled = { agent, maxIdleTicks: Math.max(1, Math.floor(keepAlive / IDLE_SWEEP_INTERVAL_MS)) };
      this.agents.set(key, pooled);
    }
    const basePath = url.pathname === '/' ? '' : url.pathname;
    return {
      origin: url.origin,
      hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
      port: url.port === '' ? (secure ? 443 : 80) : Number(url.port),
      hostHeader: url.host,
      basePath,
      agent: pooled.agent,
      request: secure ? https.request : http.request,
    };
  }

  /** Closes free sockets that stayed idle for their agent's keep-alive time. */
  sweepIdleSockets(): void {
    for (const { agent, maxIdleTicks } of this.agents.values()) {
      for (const sockets of Object.values(agent.freeSockets)) {
        if (sockets === undefined) continue;
        for (const socket of [...sockets] as PooledSocket[]) {
          const ticks = (socket[IDLE_TICKS] ?? 0) + 1;
          socket[IDLE_TICKS] = ticks;
          if (ticks > maxIdleTicks) socket.destroy();
        }
      }
    }
  }

  /** Drops agents no route uses any more, once they have no request in flight. */
  prune(inUse: ReadonlySet<http.Agent>): void {
    for (const [key, { agent }] of this.agents) {
      if (inUse.has(agent)) continue;
      if (Object.keys(agent.sockets).length === 0 && Object.keys(agent.requests).length === 0) {
        agent.destroy();
        this.agents.delete(key);
      }
    }
  }

  destroy(): void {
    clearInterval(this.sweeper);
    for (const { agent } of this.agents.values()) agent.destroy();
    this.agents.clear();
  }
}
