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
export async function runGateway(args: readonly string[], options: CliRunOptions = {}): Promise<CliResult> {
  const child = spawn(process.execPath, [...GATEWAY_COMMAND, ...args], {
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
