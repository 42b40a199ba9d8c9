import http from 'node:http';
import net from 'node:net';

export interface BalancerBackend {
  readonly host: string;
  readonly port: number;
}

export interface RoundRobinBalancerOptions {
  /** Probed with GET on every backend; only a 200 puts it in rotation. Default `/health/serving`. */
  readinessPath?: string;
  /** Between the end of one probe of a backend and the next. Default 100 ms (Kubernetes' is seconds). */
  probeIntervalMs?: number;
  /** A probe not answered within this counts as not ready. Default 1000 ms. */
  probeTimeoutMs?: number;
}

export interface RoundRobinBalancer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** Backends whose last probe answered 200, in configuration order. */
  ready(): BalancerBackend[];
  /** Client connections that found no ready backend, or whose backend refused or reset the connection. */
  readonly refused: number;
  close(): Promise<void>;
}

interface BackendState {
  readonly backend: BalancerBackend;
  ready: boolean;
}

/**
 * A TCP load balancer on loopback for cluster tests: the stand-in for a Kubernetes Service or
 * haproxy in front of data planes. Each client connection goes to the next backend in rotation
 * (round robin over those whose readiness probe last answered 200) and is piped both ways as
 * bytes. It does not retry: a connection its backend refuses or resets is the client's failure,
 * as it would be behind kube-proxy, so a test through it sees what a rolling update costs.
 */
export async function startRoundRobinBalancer(backends: readonly BalancerBackend[], options: RoundRobinBalancerOptions = {}): Promise<RoundRobinBalancer> {
  const readinessPath = options.readinessPath ?? '/health/serving';
  const probeIntervalMs = options.probeIntervalMs ?? 100;
  const probeTimeoutMs = options.probeTimeoutMs ?? 1000;
  const states: BackendState[] = backends.map((backend) => ({ backend, ready: false }));
  const clients = new Set<net.Socket>();
  let next = 0;
  let refused = 0;
  let closed = false;

  const probe = (state: BackendState): Promise<boolean> =>
    new Promise((resolve) => {
      const req = http.get({ host: state.backend.host, port: state.backend.port, path: readinessPath, agent: false, timeout: probeTimeoutMs }, (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      });
      req.on('timeout', () => req.destroy());
      req.on('error', () => resolve(false));
    });
  const probeLoops = states.map(async (state) => {
    while (!closed) {
      state.ready = await probe(state);
      if (!closed) await new Promise((resolve) => setTimeout(resolve, probeIntervalMs));
    }
  });

  const pick = (): BackendState | undefined => {
    for (let i = 0; i < states.length; i += 1) {
      const state = states[(next + i) % states.length] as BackendState;
      if (state.ready) {
        next = (next + i + 1) % states.length;
        return state;
      }
    }
    return undefined;
  };

  const server = net.createServer((client) => {
    clients.add(client);
    client.once('close', () => clients.delete(client));
    const state = pick();
    if (state === undefined) {
      refused += 1;
      client.destroy();
      return;
    }
    const upstream = net.connect(state.backend.port, state.backend.host);
    clients.add(upstream);
    upstream.once('close', () => clients.delete(upstream));
    // A reset on either side resets the other (no half-open leftovers); a clean end is passed on by pipe().
    upstream.on('error', () => {
      refused += 1;
      client.destroy();
    });
    client.on('error', () => upstream.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    ready: () => states.filter((state) => state.ready).map((state) => state.backend),
    get refused() {
      return refused;
    },
    close: async () => {
      closed = true;
      for (const socket of clients) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all(probeLoops);
    },
  };
}
