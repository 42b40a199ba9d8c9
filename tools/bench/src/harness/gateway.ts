import { existsSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { GATEWAY_BIN, GATEWAY_COMMAND, makeTempDir } from '@gateway/testing';
import { profileFlags, type ServerProcess } from './processes';
import type { HarnessContext } from './types';

/** Generous: on a machine busy with other work (load average 20 on 2 cores) a control plane took more than 60 s to start. */
const START_TIMEOUT_MS = 180_000;

/** A free port on 127.0.0.1 right now (bound, then released). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

function healthy(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/health/live', agent: false, timeout: 1000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

/**
 * Starts the real data plane: `node apps/cli/bin/gateway.js start` with its own proxy.yml and data
 * dir in a temp dir, LOG_LEVEL=warn. At warn the "gateway listening" line is not printed, so the
 * port is chosen here and readiness is GET /health/live answering 200 (or the line, if it shows).
 */
export function startDataPlane(ctx: HarnessContext, name: string, configYaml: string, env: NodeJS.ProcessEnv = {}, launch: GatewayLaunch = {}): Promise<GatewayServer> {
  return startGateway(ctx, name, 'data-plane', configYaml, env, launch);
}

/** A started gateway, with where its proxy.yml and data directory are (a reload rewrites the one and reads the other). */
export interface GatewayServer extends ServerProcess {
  readonly configPath: string;
  readonly dataDir: string;
}

/** How the gateway process is started, beyond its role, config and environment. */
export interface GatewayLaunch {
  /** A command the node process runs under (`['valgrind', '--tool=callgrind', ...]`); its pid is node's. */
  readonly wrapper?: readonly string[];
  /** How long it may take to answer GET /health/live (default 60 s; a process under valgrind needs more). */
  readonly startTimeoutMs?: number;
  /** Node/V8 flags before the gateway's own (`--single-threaded` for counting under valgrind). */
  readonly nodeFlags?: readonly string[];
  /** Node flags and script of the gateway (default this checkout's GATEWAY_COMMAND; another build as a baseline). */
  readonly command?: readonly string[];
}

/**
 * `gateway start --role <role>` the same way; the control-plane role serves GET /health/live too.
 * `env` is laid over the harness's environment (an `undefined` value removes a variable).
 */
export async function startGateway(
  ctx: HarnessContext,
  name: string,
  role: 'data-plane' | 'control-plane',
  configYaml: string,
  env: NodeJS.ProcessEnv = {},
  launch: GatewayLaunch = {},
): Promise<GatewayServer> {
  const startTimeoutMs = launch.startTimeoutMs ?? START_TIMEOUT_MS;
  if (!existsSync(GATEWAY_BIN)) {
    throw new Error(`the gateway is not built (${GATEWAY_BIN} is missing): run "npm run build", or leave it out with --only proxy/direct,proxy/forwarder`);
  }
  const dir = makeTempDir('gateway-bench-');
  const configPath = path.join(dir.path, 'proxy.yml');
  writeFileSync(configPath, configYaml);
  const port = await freePort();
  const wrapper = launch.wrapper ?? [];
  const managed = ctx.processes.spawn(name, wrapper[0] ?? process.execPath, {
    args: [
      ...(wrapper.length > 0 ? [...wrapper.slice(1), process.execPath] : []),
      ...(launch.nodeFlags ?? []),
      ...profileFlags(ctx.options.profileDir, name),
      '--require', path.join(__dirname, '..', 'servers', 'orphan-guard.js'),
      ...(launch.command ?? GATEWAY_COMMAND), 'start', '--role', role, '--config', configPath, '--port', String(port), '--host', '127.0.0.1', '--data-dir', path.join(dir.path, 'data'),
    ],
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    cwd: dir.path,
    cleanup: dir.remove,
  });

  let settled = false;
  const fromLine = managed.waitForLine((line) => line.includes('gateway listening'), startTimeoutMs).then((line) => {
    const announced = (JSON.parse(line) as { port?: number }).port;
    return typeof announced === 'number' ? announced : port;
  });
  const fromHealth = (async (): Promise<number> => {
    const deadline = Date.now() + startTimeoutMs;
    while (!settled && !managed.hasExited() && Date.now() < deadline) {
      if (await healthy(port)) return port;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`${name} did not answer GET /health/live on port ${port} within ${startTimeoutMs} ms; output:\n${managed.output.join('\n')}`);
  })();
  try {
    const listening = await Promise.race([fromLine, fromHealth]);
    return { name, origin: `http://127.0.0.1:${listening}`, port: listening, pid: managed.pid, process: managed, configPath, dataDir: path.join(dir.path, 'data') };
  } finally {
    settled = true;
    fromLine.catch(() => undefined);
    fromHealth.catch(() => undefined);
  }
}
