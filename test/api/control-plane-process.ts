import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_START_TIMEOUT_MS, makeTempDir, REPO_ROOT } from '@gateway/testing';

/** The control plane's built entry; tests drive it as a separate process, never import it. */
const START_ENTRY = path.join(REPO_ROOT, 'apps', 'control-plane', 'dist', 'start.js');

export interface ControlPlaneProcess {
  readonly url: string;
  readonly port: number;
  readonly dataDir: string;
  readonly configPath: string;
  readonly output: string[];
  readonly child: ChildProcess;
  /** Replaces proxy.yml (the caller sends SIGHUP to apply it). */
  writeConfig(yaml: string): void;
  /** SIGTERM (the runner closes the app), SIGKILL after 5 s; removes the temp dir unless `keepDir`. */
  stop(options?: { keepDir?: boolean }): Promise<number | null>;
}

export interface ControlPlaneProcessOptions {
  env?: NodeJS.ProcessEnv;
  /** proxy.yml text (default: no file). */
  config?: string;
  /** Reuse a data directory (restarts). */
  dataDir?: string;
  startTimeoutMs?: number;
}

// The child: start() in the control-plane role on an ephemeral port, one JSON line when ready,
// close() on SIGTERM. Kept as source text so the test tree imports nothing of the plane.
const RUNNER = `
const { start } = require(process.env.CP_START_ENTRY);
start({ dataDir: process.env.CP_DATA_DIR, configPath: process.env.CP_CONFIG_PATH, listen: { host: '127.0.0.1', port: 0 } })
  .then((cp) => {
    process.stdout.write(JSON.stringify({ event: 'control-plane-ready', port: cp.port }) + '\\n');
    process.once('SIGTERM', () => cp.close().then(() => process.exit(0), () => process.exit(1)));
    // As the CLI does: SIGHUP reconciles proxy.yml and reports the outcome as one JSON line.
    process.on('SIGHUP', () => cp.reconcileFile().then((outcome) => process.stdout.write(JSON.stringify({ event: 'reconciled', ok: outcome.ok, version: outcome.ok ? outcome.version : undefined }) + '\\n')));
  })
  .catch((error) => {
    process.stderr.write('control plane failed to start: ' + (error && error.message) + '\\n');
    process.exit(1);
  });
`;

/** Required in the control-plane role; suites about the key pass their own (or '' to leave it out). */
export const TEST_SETTINGS_ENCRYPTION_KEY = 'settings-encryption-key-for-tests-0123456789';

const RELAXED_API_LIMITS: NodeJS.ProcessEnv = {
  API_RATE_LIMIT_GENERAL_MAX: '100000',
  API_RATE_LIMIT_ADMIN_MAX: '100000',
  API_RATE_LIMIT_CREDENTIALS_MAX: '100000',
};

export async function startControlPlaneProcess(options: ControlPlaneProcessOptions = {}): Promise<ControlPlaneProcess> {
  const dir = makeTempDir('cp-e2e-');
  const dataDir = options.dataDir ?? path.join(dir.path, 'data');
  const configPath = path.join(dir.path, 'proxy.yml');
  if (options.config !== undefined) writeFileSync(configPath, options.config);
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'CLUSTER_TOKEN', 'JWT_SECRET', 'SETTINGS_ENCRYPTION_KEY', 'ADMIN_EMAIL', 'ADMIN_PASSWORD', 'ALLOWED_ORIGINS']) delete env[name];
  const child = spawn(process.execPath, ['-e', RUNNER], {
    // The API limits (decision 21) are raised so that suites making many calls are not throttled;
    // the throttling suite sets its own low API_RATE_LIMIT_* values.
    env: { ...env, LOG_LEVEL: 'warn', SETTINGS_ENCRYPTION_KEY: TEST_SETTINGS_ENCRYPTION_KEY, ...RELAXED_API_LIMITS, ...options.env, CP_START_ENTRY: START_ENTRY, CP_DATA_DIR: dataDir, CP_CONFIG_PATH: configPath },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  let onReady: ((port: number) => void) | undefined;
  for (const stream of [child.stdout, child.stderr]) {
    let pending = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        output.push(line);
        if (line.includes('"control-plane-ready"')) onReady?.((JSON.parse(line) as { port: number }).port);
      }
    });
  }
  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => ((exitCode = code), resolve(code))));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      // Killed, or its pipes keep the test file's process alive until the runner's hang guard.
      child.kill('SIGKILL');
      reject(new Error(`control plane did not start; output:\n${output.join('\n')}`));
    }, options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS);
    onReady = (p) => (clearTimeout(timer), resolve(p));
    void exited.then((code) => (clearTimeout(timer), reject(new Error(`control plane exited (${code}); output:\n${output.join('\n')}`))));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    dataDir,
    configPath,
    output,
    child,
    writeConfig: (yaml) => writeFileSync(configPath, yaml),
    stop: async ({ keepDir = false } = {}) => {
      if (exitCode === undefined) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
      if (!keepDir) dir.remove();
      return exitCode ?? null;
    },
  };
}
