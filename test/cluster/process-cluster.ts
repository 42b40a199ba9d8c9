import {
  clusterSecrets,
  controlPlaneEnv,
  dataPlaneEnv,
  EMPTY_PROXY_CONFIG,
  loginToManagementApi,
  request,
  startGatewayProcess,
  startRedisServer,
  startRoundRobinBalancer,
  type ClusterSecrets,
  type GatewayProcess,
  type ManagementApi,
  type RedisServer,
  type RoundRobinBalancer,
} from '@gateway/testing';

export interface ProcessClusterOptions {
  dataPlanes?: number;
  /** More than one: they share `databaseUrl` and sit behind a readiness-following balancer (the API's ingress). */
  controlPlanes?: number;
  /** PostgreSQL every control plane uses (default: SQLite in the one control plane's data dir). */
  databaseUrl?: string;
  label?: string;
  /** Added to every data plane's environment (e.g. DRAIN_DELAY_SECONDS). */
  dataPlaneEnv?: NodeJS.ProcessEnv;
  /** Added to every control plane's environment (e.g. LEASE_TTL). */
  controlPlaneEnv?: NodeJS.ProcessEnv;
  /** Resolves once the first control plane is settled enough for the next to start (e.g. it holds its leases). */
  afterFirstControlPlane?: () => Promise<void>;
}

/*
 * A real cluster of processes for end-to-end tests: a private redis-server (killable, restartable
 * on its port), `gateway start --role control-plane` (SQLite in its temp dir, the first admin from
 * ADMIN_EMAIL/ADMIN_PASSWORD, raised API limits) and data planes `gateway start --role data-plane`
 * following it (CONTROL_PLANE_URL, CLUSTER_TOKEN, REDIS_URL, a unique REDIS_CHANNEL_PREFIX).
 * Restarts keep the port and the data dir, so the data planes' CONTROL_PLANE_URL stays valid and
 * every process comes back with its own state (database, saved route snapshot).
 */
export class ProcessCluster {
  private constructor(
    readonly secrets: ClusterSecrets,
    readonly redis: RedisServer,
    private readonly cps: GatewayProcess[],
    private readonly planes: GatewayProcess[],
    /** An admin's client for the control plane(s) (the token outlives control-plane restarts). */
    readonly api: ManagementApi,
    /** In front of the control planes when there are several: the data planes' CONTROL_PLANE_URL and the API's address. */
    readonly controlPlaneBalancer: RoundRobinBalancer | undefined,
  ) {}

  static async start(options: ProcessClusterOptions = {}): Promise<ProcessCluster> {
    const secrets = clusterSecrets(options.label ?? 'e2e-cluster');
    const redis = await startRedisServer();
    const started: GatewayProcess[] = [];
    let balancer: RoundRobinBalancer | undefined;
    try {
      const cpEnv = { ...controlPlaneEnv(secrets, redis.url), ...(options.databaseUrl === undefined ? {} : { DATABASE_URL: options.databaseUrl }), ...options.controlPlaneEnv };
      const startControlPlane = async (): Promise<GatewayProcess> => {
        const cp = await startGatewayProcess({ role: 'control-plane', config: EMPTY_PROXY_CONFIG, env: cpEnv, startTimeoutMs: 60_000 });
        started.push(cp);
        return cp;
      };
      // One after the other: the first one migrates the shared database and creates the first admin.
      const cps = [await startControlPlane()];
      await options.afterFirstControlPlane?.();
      for (let i = 1; i < (options.controlPlanes ?? 1); i += 1) cps.push(await startControlPlane());
      if (cps.length > 1) balancer = await startRoundRobinBalancer(cps.map((cp) => ({ host: '127.0.0.1', port: cp.port })));
      const controlPlaneUrl = balancer?.url ?? (cps[0] as GatewayProcess).url;
      if (balancer !== undefined) await waitFor(() => balancer?.ready().length === cps.length, 'every control plane in the balancer');
      const planes = await Promise.all(
        Array.from({ length: options.dataPlanes ?? 2 }, () =>
          startGatewayProcess({ role: 'data-plane', config: EMPTY_PROXY_CONFIG, env: { ...dataPlaneEnv(secrets, redis.url, controlPlaneUrl), ...options.dataPlaneEnv }, startTimeoutMs: 30_000 }).then((dp) => {
            started.push(dp);
            return dp;
          }),
        ),
      );
      const api = await loginToManagementApi(controlPlaneUrl, secrets.admin);
      return new ProcessCluster(secrets, redis, cps, planes, api, balancer);
    } catch (error) {
      await balancer?.close();
      await Promise.all(started.map((p) => p.stop()));
      await redis.stop();
      throw error;
    }
  }

  /** The first control plane. */
  get controlPlane(): GatewayProcess {
    return this.cps[0] as GatewayProcess;
  }

  get controlPlanes(): readonly GatewayProcess[] {
    return this.cps;
  }

  get dataPlanes(): readonly GatewayProcess[] {
    return this.planes;
  }

  /** SIGKILL of a control plane (a crash); its data dir and port are kept for `restartControlPlane()`. */
  killControlPlane(index = 0): Promise<void> {
    return (this.cps[index] as GatewayProcess).kill();
  }

  /** Starts a control plane again on its port with its data dir (after `killControlPlane()`). */
  async restartControlPlane(index = 0): Promise<void> {
    this.cps[index] = await (this.cps[index] as GatewayProcess).restart();
  }

  /** SIGKILL of one data plane, then the same data plane again (port, data dir, environment). */
  async restartDataPlane(index: number): Promise<GatewayProcess> {
    const plane = this.planes[index];
    if (plane === undefined) throw new Error(`no data plane ${index}`);
    await plane.kill();
    const again = await plane.restart();
    this.planes[index] = again;
    return again;
  }

  /**
   * A rolling update's step for one data plane: SIGTERM (it drains), wait for its exit, start the
   * same data plane again. Resolves with its exit code and the new process.
   */
  async drainAndRestartDataPlane(index: number): Promise<{ exitCode: number | null; plane: GatewayProcess }> {
    const plane = this.planes[index];
    if (plane === undefined) throw new Error(`no data plane ${index}`);
    plane.signal('SIGTERM');
    const exitCode = await plane.exited;
    const again = await plane.restart();
    this.planes[index] = again;
    return { exitCode, plane: again };
  }

  /** `<status> <body>` of GET `urlPath` through every data plane (body only for 200s). */
  async servedByEach(urlPath: string): Promise<string[]> {
    return Promise.all(this.planes.map(async (dp) => {
      const res = await request(`${dp.url}${urlPath}`, { timeoutMs: 3000 });
      return res.status === 200 ? `200 ${res.text}` : String(res.status);
    }));
  }

  /** Whether every data plane answers GET `urlPath` with `expected` (`200 <body>` or a bare status). */
  async everyPlaneAnswers(urlPath: string, expected: string): Promise<boolean> {
    return (await this.servedByEach(urlPath)).every((answer) => answer === expected);
  }

  async close(): Promise<void> {
    await this.controlPlaneBalancer?.close();
    await Promise.all([...this.planes, ...this.cps].map((p) => p.stop()));
    await this.redis.stop();
  }
}

async function waitFor(check: () => boolean, what: string, ms = 15_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Proxied traffic through some data planes until stopped; every answer but a 200 with `expectedBody` is a failure. */
export interface Traffic {
  /** Stops the loops and resolves with their tally once the requests in flight have finished. */
  stop(): Promise<{ sent: number; failures: string[] }>;
}

/**
 * One sequential loop per data plane (or per entry: the same balancer may be given several times), a fresh connection per request and a short pause between
 * requests (a steady trickle, not a load test on a shared 2-core machine).
 */
export function startTraffic(planes: ReadonlyArray<Pick<GatewayProcess, 'url'>>, urlPath: string, expectedBody: string, pauseMs = 10): Traffic {
  let running = true;
  let sent = 0;
  const failures: string[] = [];
  const loop = async (dp: Pick<GatewayProcess, 'url'>): Promise<void> => {
    while (running) {
      sent += 1;
      try {
        const res = await request(`${dp.url}${urlPath}`, { timeoutMs: 5000 });
        if (res.status !== 200 || res.text !== expectedBody) failures.push(`${dp.url}${urlPath}: ${res.status} ${res.text.slice(0, 200)}`);
      } catch (error) {
        failures.push(`${dp.url}${urlPath}: ${error instanceof Error ? error.message : String(error)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  };
  const loops = planes.map(loop);
  return {
    stop: async () => {
      running = false;
      await Promise.all(loops);
      return { sent, failures };
    },
  };
}
