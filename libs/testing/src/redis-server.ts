import { spawn, type ChildProcess } from 'node:child_process';
import { refusedPort } from './loopback-upstream';

/** A private `redis-server` a test may kill and start again on the same port. */
export interface RedisServer {
  readonly port: number;
  /** `redis://127.0.0.1:<port>`; with `tls` `rediss://`, with `user` `<name>:<password>@` in it. */
  readonly url: string;
  /** Whether the server process is up right now. */
  readonly running: boolean;
  /** SIGKILL (what a crash does to its clients: connections cut, no goodbye); resolves once it has exited. */
  kill(): Promise<void>;
  /** Starts it again on the same port (after `kill()`), resolving once it accepts connections. */
  restart(): Promise<void>;
  /** Kills it if it runs; for `after()` hooks. */
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 10_000;

export interface RedisServerOptions {
  port?: number;
  /** TLS only (no plain port): the server's certificate and key files (makeSelfSignedCert). */
  tls?: { certPath: string; keyPath: string };
  /** ACLs: the default user is off; only this user, with every permission, can connect. */
  user?: { name: string; password: string };
}

/**
 * Starts the system's `redis-server` on 127.0.0.1 without persistence, on `port` or a free one.
 * A port given before any server exists lets a test create clients first (Redis absent at start).
 * Fails (never skips) when redis-server is not installed.
 */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const port = options.port ?? (await refusedPort());
  const args = serverArgs(port, options);
  let server: Launched | undefined = await launch(port, args);
  const kill = async (): Promise<void> => {
    if (server === undefined) return;
    server.child.kill('SIGKILL');
    await server.exited;
    server = undefined;
  };
  return {
    port,
    url: `${options.tls === undefined ? 'redis' : 'rediss'}://${options.user === undefined ? '' : `${encodeURIComponent(options.user.name)}:${encodeURIComponent(options.user.password)}@`}127.0.0.1:${port}`,
    get running() {
      return server !== undefined;
    },
    kill,
    restart: async () => {
      if (server !== undefined) throw new Error(`redis-server on port ${port} is still running; kill() it first`);
      server = await launch(port, args);
    },
    stop: kill,
  };
}

interface Launched {
  child: ChildProcess;
  exited: Promise<void>;
}

function serverArgs(port: number, options: RedisServerOptions): string[] {
  const listen =
    options.tls === undefined
      ? ['--port', String(port)]
      : ['--port', '0', '--tls-port', String(port), '--tls-cert-file', options.tls.certPath, '--tls-key-file', options.tls.keyPath, '--tls-auth-clients', 'no'];
  const acl = options.user === undefined ? [] : ['--user', 'default', 'off', '--user', options.user.name, 'on', `>${options.user.password}`, '~*', '&*', '+@all'];
  return [...listen, '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...acl];
}

async function launch(port: number, args: readonly string[]): Promise<Launched> {
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let ready = false;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const started = new Promise<void>((resolve, reject) => {
    child.once('error', (error) => reject(new Error(`cannot run redis-server (is it installed?): ${error.message}`)));
    void exited.then((code) => reject(new Error(`redis-server on port ${port} exited (${code}): ${output}`)));
    for (const stream of [child.stdout, child.stderr]) {
      // Read to the end, so a chatty server never blocks on a full pipe.
      stream?.setEncoding('utf8').on('data', (chunk: string) => {
        if (ready) return;
        output += chunk;
        if (output.includes('Ready to accept connections')) {
          ready = true;
          resolve();
        }
      });
    }
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`redis-server on port ${port} not ready within ${READY_TIMEOUT_MS} ms: ${output}`)), READY_TIMEOUT_MS);
  });
  try {
    await Promise.race([started, timeout]);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  } finally {
    clearTimeout(timer);
  }
  return { child, exited: exited.then(() => undefined) };
}
