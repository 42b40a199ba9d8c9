import { API_VERSION, CONFIG_SCHEMA_VERSION } from '@gateway/route-model';
import type { Exchange } from '../engine/exchange';
import type { LocalEndpoints } from '../engine/request-dispatcher';
import type { EngineServices } from '../engine/ports';
import { sendError, sendJson } from '../engine/responses';
import { sendExposition } from './metrics-response';
import type { RouteTable } from '../engine/route-table';
import { readiness, type HealthStatus } from './readiness';

/** Checks the composition adds to readiness (database, Redis); a rejection or a slow answer counts as DOWN. */
export type ExtraReadiness = () => Promise<Record<string, 'UP' | 'DOWN'>>;

/** A readiness probe must answer quickly; a dependency check slower than this is DOWN. */
const EXTRA_READINESS_TIMEOUT_MS = 2000;

export const GATEWAY_NAME = 'gateway';

/**
 * The operational endpoints of spec 4.2, served on the proxy port ahead of route matching: a
 * route cannot shadow them (decision recorded in docs/data-plane.md).
 */
export class OpsEndpoints implements LocalEndpoints {
  private readonly paths: ReadonlyMap<string, (exchange: Exchange) => void>;

  constructor(
    private readonly services: EngineServices,
    private readonly currentTable: () => RouteTable | undefined,
    private readonly extraReadiness?: ExtraReadiness,
    /** True once the process is stopping: both readiness probes answer 503 so balancers route elsewhere. */
    private readonly draining: () => boolean = () => false,
  ) {
    this.paths = new Map<string, (exchange: Exchange) => void>([
      ['/version', (e) => this.version(e)],
      ['/health', (e) => this.health(e)],
      ['/health/live', (e) => this.health(e)],
      ['/health/ready', (e) => this.ready(e)],
      ['/health/serving', (e) => this.serving(e)],
      ['/health/deep', (e) => this.deep(e)],
      ['/metrics', (e) => void this.metrics(e)],
    ]);
  }

  /** Whether `path` is one of these endpoints (the HTTPS redirect leaves them on plain HTTP for probes). */
  serves(path: string): boolean {
    return this.paths.has(path);
  }

  handle(exchange: Exchange): boolean {
    const path = exchange.path;
    // Every ops path starts with /h, /m or /v and is short: most proxied paths skip the lookup.
    if (path.length > 15) return false;
    const first = path.charCodeAt(1);
    if (first !== 104 /* h */ && first !== 109 /* m */ && first !== 118 /* v */) return false;
    const endpoint = this.paths.get(path);
    if (endpoint === undefined) return false;
    exchange.local = true;
    if (exchange.method !== 'GET' && exchange.method !== 'HEAD') {
      sendError(exchange, 'METHOD_NOT_ALLOWED', undefined, { allow: 'GET, HEAD' });
      return true;
    }
    endpoint(exchange);
    return true;
  }

  private uptimeSeconds(): number {
    return Math.round((Date.now() - this.services.startedAt) / 10) / 100;
  }

  private version(exchange: Exchange): void {
    sendJson(exchange, 200, {
      name: GATEWAY_NAME,
      version: this.services.version,
      apiVersion: API_VERSION,
      configVersion: CONFIG_SCHEMA_VERSION,
      node: process.version,
      uptime: this.uptimeSeconds(),
    });
  }

  /** Liveness: the event loop answers. A process that cannot answer this is restarted. */
  private health(exchange: Exchange): void {
    sendJson(exchange, 200, { status: 'UP', timestamp: new Date().toISOString(), version: this.services.version });
  }

  /**
   * Kubernetes readiness probe: UP once a configuration is loaded. Unlike /health/ready it ignores
   * upstream breakers and dependencies, so an outage behind the gateway cannot pull every pod out of
   * service at once (docs/deployment.md).
   */
  private serving(exchange: Exchange): void {
    if (this.draining()) {
      sendDraining(exchange);
      return;
    }
    const loaded = this.currentTable() !== undefined;
    sendJson(exchange, loaded ? 200 : 503, { status: loaded ? 'UP' : 'DOWN', timestamp: new Date().toISOString() });
  }

  private ready(exchange: Exchange): void {
    if (this.draining()) {
      sendDraining(exchange);
      return;
    }
    this.withExtraChecks(exchange, (extra) => {
      const result = readiness(this.currentTable(), this.services.health, extra);
      sendJson(exchange, result.status === 'DOWN' ? 503 : 200, { status: result.status, checks: result.checks, timestamp: new Date().toISOString() });
    });
  }

  private deep(exchange: Exchange): void {
    this.withExtraChecks(exchange, (extra) => this.sendDeep(exchange, extra));
  }

  /** Runs `send` with the extra checks' results (synchronously when there are none). */
  private withExtraChecks(exchange: Exchange, send: (extra: Record<string, HealthStatus>) => void): void {
    const extra = this.extraReadiness;
    if (extra === undefined) {
      send({});
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<Record<string, HealthStatus>>((resolve) => {
      timer = setTimeout(() => resolve({ dependencies: 'DOWN' }), EXTRA_READINESS_TIMEOUT_MS);
    });
    const checked = Promise.resolve()
      .then(extra)
      .then(
        (result) => sanitizeChecks(result),
        (error: unknown) => {
          this.services.logger.warn({ err: String(error) }, 'readiness check failed');
          return { dependencies: 'DOWN' as const };
        },
      );
    void Promise.race([checked, timeout]).then((result) => {
      clearTimeout(timer);
      if (!exchange.clientAborted) send(result);
    });
  }

  private sendDeep(exchange: Exchange, extra: Record<string, HealthStatus>): void {
    const memory = process.memoryUsage();
    const result = readiness(this.currentTable(), this.services.health, extra);
    const upstreams = this.services.health.upstreamTargets();
    sendJson(exchange, 200, {
      status: result.status,
      uptime: this.uptimeSeconds(),
      timestamp: new Date().toISOString(),
      circuitBreakers: this.services.health.breakers(),
      // Beyond spec 4.2's shape, and only with named upstreams: per-target state (docs/upstreams.md).
      ...(Object.keys(upstreams).length === 0 ? {} : { upstreams }),
      memory: {
        heapUsed: memory.heapUsed,
        heapTotal: memory.heapTotal,
        percentUsed: ((memory.heapUsed / memory.heapTotal) * 100).toFixed(2),
      },
    });
  }

  private async metrics(exchange: Exchange): Promise<void> {
    try {
      const exposition = await this.services.metrics.exposition();
      if (exchange.clientAborted) {
        exposition.chunks.return?.();
        return;
      }
      sendExposition(exchange, exposition, this.services.logger);
    } catch (error) {
      this.services.logger.error({ err: String(error) }, 'metrics rendering failed');
      sendError(exchange, 'INTERNAL_ERROR');
    }
  }
}

/** Readiness of a stopping process (docs/deployment.md, "Graceful drain"). */
function sendDraining(exchange: Exchange): void {
  sendJson(exchange, 503, { status: 'DOWN', draining: true, timestamp: new Date().toISOString() });
}

/** Only UP/DOWN values under plain names reach the response; anything else reads as DOWN. */
function sanitizeChecks(result: unknown): Record<string, HealthStatus> {
  if (typeof result !== 'object' || result === null) return { dependencies: 'DOWN' };
  const out: Record<string, HealthStatus> = {};
  for (const [name, value] of Object.entries(result as Record<string, unknown>)) {
    if (!/^[A-Za-z][A-Za-z0-9_-]{0,63}$/.test(name)) continue;
    out[name] = value === 'UP' ? 'UP' : 'DOWN';
  }
  return out;
}
