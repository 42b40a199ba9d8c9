import http from 'node:http';
import https from 'node:https';
import type { Route } from '@gateway/route-model';

/** Idle upstream sockets close before common servers' own 5 s keep-alive timeout (node's default). */
export const DEFAULT_UPSTREAM_KEEP_ALIVE_MS = 4000;

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
}

/**
 * Keep-alive agents per upstream origin and idle timeout, shared by every route that points
 * there and kept across reloads, so a reload never drops warm connections.
 */
export class UpstreamAgentPool {
  private readonly agents = new Map<string, http.Agent>();

  targetFor(route: Route): UpstreamTarget {
    const url = new URL(route.upstream);
    const secure = url.protocol === 'https:';
    const keepAlive = route.timeout.keepAlive ?? DEFAULT_UPSTREAM_KEEP_ALIVE_MS;
    const key = `${url.origin}|${keepAlive}`;
    let agent = this.agents.get(key);
    if (agent === undefined) {
      const options: http.AgentOptions = { keepAlive: true, timeout: keepAlive, maxFreeSockets: 256, scheduling: 'lifo' };
      agent = secure ? new https.Agent(options) : new http.Agent(options);
      this.agents.set(key, agent);
    }
    const basePath = url.pathname === '/' ? '' : url.pathname;
    return {
      origin: url.origin,
      hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
      port: url.port === '' ? (secure ? 443 : 80) : Number(url.port),
      hostHeader: url.host,
      basePath,
      agent,
      request: secure ? https.request : http.request,
    };
  }

  /** Drops agents no route uses any more, once they have no request in flight. */
  prune(inUse: ReadonlySet<http.Agent>): void {
    for (const [key, agent] of this.agents) {
      if (inUse.has(agent)) continue;
      if (Object.keys(agent.sockets).length === 0 && Object.keys(agent.requests).length === 0) {
        agent.destroy();
        this.agents.delete(key);
      }
    }
  }

  destroy(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }
}
