import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { clusterSecrets, controlPlaneEnv, GATEWAY_COMMAND, startGatewayProcess, type ClusterSecrets, type GatewayProcess, type ManagementApi } from '@gateway/testing';

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliRunOptions {
  cwd?: string;
  /** Added to the environment (the caller's GATEWAY_* variables are removed first). */
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

/** The environment of a CLI run: the test's own, minus anything that would pick paths for it. */
export function cliEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env['GATEWAY_CONFIG'];
  delete env['GATEWAY_DATA_DIR'];
  return { ...env, ...extra };
}

/** Runs `node apps/cli/bin/gateway.js <args>` to completion, as a user would. */
export function runGateway(args: readonly string[], options: CliRunOptions = {}): Promise<CliResult> {
  return runToCompletion(process.execPath, [...GATEWAY_COMMAND, ...args], options);
}

/** Runs a shell command line (`sh -c`) to completion, as a user typing it would. */
export function runShell(commandLine: string, options: CliRunOptions = {}): Promise<CliResult> {
  return runToCompletion('sh', ['-c', commandLine], options);
}

async function runToCompletion(executable: string, args: readonly string[], options: CliRunOptions): Promise<CliResult> {
  const child = spawn(executable, args, {
    cwd: options.cwd ?? process.cwd(),
    env: cliEnv(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
  const [code, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null];
  clearTimeout(timer);
  return { code, signal, stdout, stderr };
}

/** Polls until `check` returns a value other than undefined. */
export async function waitFor<T>(what: string, check: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export function readIfExists(file: string): string | undefined {
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

/** The pid of a process that has already exited (for stale pid files). */
export async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await once(child, 'exit');
  return child.pid ?? 999_999;
}

export interface PrintedDiff {
  added: string[];
  changed: string[];
  removed: string[];
}

/** The route ids of the `+`, `~` and `-` lines `config:reload` prints (formatRouteDiff), sorted. */
export function printedDiff(stdout: string): PrintedDiff {
  const ids = (sign: string): string[] =>
    [...stdout.matchAll(new RegExp(`^ {2}\\${sign} (\\S+) `, 'gm'))].map((match) => match[1] as string).sort();
  return { added: ids('+'), changed: ids('~'), removed: ids('-') };
}

/**
 * A one-process gateway (`--role all`) with a first admin for the commands that need one
 * (`routes:list`, `logs`). The general and admin API limits are raised; the credentials tier keeps
 * decision 21's 5 logins per 15 minutes, which those commands must not run into.
 */
export async function startAdminGateway(label: string, config: string): Promise<{ gateway: GatewayProcess; secrets: ClusterSecrets; adminEnv: NodeJS.ProcessEnv }> {
  const secrets = clusterSecrets(label);
  const gateway = await startGatewayProcess({
    role: 'all',
    config,
    env: { ...controlPlaneEnv(secrets, undefined), API_RATE_LIMIT_CREDENTIALS_MAX: undefined, API_RATE_LIMIT_CREDENTIALS_WINDOW_SECONDS: undefined },
    startTimeoutMs: 30_000,
  });
  await gateway.waitForOutput('pid file written');
  // The CLI's credentials, and nothing inherited that would pick another token.
  const adminEnv = { ADMIN_EMAIL: secrets.admin.email, ADMIN_PASSWORD: secrets.admin.password, GATEWAY_TOKEN: '', GATEWAY_URL: '' };
  return { gateway, secrets, adminEnv };
}

/** How many logins the control plane audited (`auth.login`, the whole audit log page by page). */
export async function auditedLogins(api: ManagementApi): Promise<number> {
  let count = 0;
  for (let offset = 0; ; offset += 100) {
    const page = (await api.expect(200, 'GET', `/api/audit-log?limit=100&offset=${offset}`)).json<{ data: Array<{ action: string }>; pagination: { hasMore: boolean } }>();
    count += page.data.filter((entry) => entry.action === 'auth.login').length;
    if (!page.pagination.hasMore) return count;
  }
}

/** Variables a first-run test must not inherit: `gateway start` would take them over `.env` and the data dir. */
const FIRST_RUN_VARIABLES = ['JWT_SECRET', 'API_KEY_SECRET', 'CLUSTER_TOKEN', 'ADMIN_EMAIL', 'ADMIN_PASSWORD', 'DATABASE_URL', 'REDIS_URL', 'CONTROL_PLANE_URL', 'GATEWAY_URL', 'GATEWAY_TOKEN'];

/**
 * The environment of a user's shell on a first run: nothing set that `.env` or the data dir
 * provide. The variables are present as undefined so they also unset the test's own when spread
 * over it (spawn leaves undefined values out).
 */
export function firstRunEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = cliEnv();
  for (const name of FIRST_RUN_VARIABLES) env[name] = undefined;
  return { ...env, ...extra };
}

export interface StartedGateway {
  readonly url: string;
  readonly output: string[];
  /** SIGTERM; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** `gateway` of this checkout as a command line, for startGatewayIn. */
export const GATEWAY_CLI: readonly string[] = [process.execPath, ...GATEWAY_COMMAND];

/**
 * A gateway started by `command` (GATEWAY_CLI and `start` with options, or the README's `npx gateway start`)
 * in `cwd` as a user would, so it loads that directory's `.env`; resolved once it logs "gateway
 * listening". Unlike startGatewayProcess it owns no directory.
 */
export async function startGatewayIn(cwd: string, command: readonly string[], env: NodeJS.ProcessEnv, startTimeoutMs = 60_000): Promise<StartedGateway> {
  const [executable, ...args] = command as [string, ...string[]];
  const child = spawn(executable, args, {
    cwd,
    // No drain delay on stop() unless the test sets one (each stop would wait its 5 s default).
    env: { LOG_LEVEL: 'info', DRAIN_DELAY_SECONDS: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // npx runs the gateway as its child: SIGTERM goes to the whole group.
    detached: true,
  });
  const output: string[] = [];
  const exited = once(child, 'exit') as Promise<[number | null]>;
  const listening = new Promise<string>((resolve, reject) => {
    for (const stream of [child.stdout, child.stderr]) {
      let pending = '';
      stream.setEncoding('utf8').on('data', (chunk: string) => {
        const lines = (pending + chunk).split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) {
          output.push(line);
          if (line.includes('gateway listening')) resolve(line);
        }
      });
    }
    void exited.then(([code]) => reject(new Error(`gateway start exited (${code}) before listening:\n${output.join('\n')}`)));
  });
  const stop = async (): Promise<number | null> => {
    if (child.exitCode === null && child.signalCode === null) process.kill(-(child.pid as number), 'SIGTERM');
    const [code] = await exited;
    return code;
  };
  const timer = setTimeout(() => void stop(), startTimeoutMs);
  try {
    const port = (JSON.parse(await listening) as { port: number }).port;
    return { url: `http://127.0.0.1:${port}`, output, stop };
  } catch (error) {
    await stop();
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
