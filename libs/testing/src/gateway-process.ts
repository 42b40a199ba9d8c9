import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { refusedPort } from './loopback-upstream';
import { makeTempDir } from './temp-dir';

/** The repository root, found from this file's place in libs/testing/dist. */
export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
export const GATEWAY_BIN = path.join(REPO_ROOT, 'apps', 'cli', 'bin', 'gateway.js');

/** The node flags on a `#!/usr/bin/env -S node <flags>` line (none for a plain `node` shebang). */
export function shebangNodeFlags(script: string): string[] {
  const first = script.slice(0, script.indexOf('\n') === -1 ? undefined : script.indexOf('\n'));
  const match = /^#!\/usr\/bin\/env\s+(?:-S\s+)?node((?:\s+\S+)*)\s*$/.exec(first);
  return match === null ? [] : (match[1] as string).trim().split(/\s+/).filter((flag) => flag !== '');
}

/**
 * How to run the gateway with `process.execPath` exactly as the installed `gateway` command runs
 * (its shebang carries V8 flags): tests and benchmarks spawn `node ...GATEWAY_COMMAND <args>`.
 */
export const GATEWAY_NODE_FLAGS: readonly string[] = shebangNodeFlags(readFileSync(GATEWAY_BIN, 'utf8'));
export const GATEWAY_COMMAND: readonly string[] = [...GATEWAY_NODE_FLAGS, GATEWAY_BIN];

export interface GatewayProcess {
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  readonly child: ChildProcess;
  /** The temp dir holding proxy.yml and the data dir (kept by `kill()` for `restart()`). */
  readonly dir: string;
  readonly dataDir: string;
  readonly configPath: string;
  /** Every stdout and stderr line so far. */
  readonly output: string[];
  /**
   * Replaces proxy.yml with new text (call `signal('SIGHUP')` to apply). Atomic: the text goes to
   * a temp file in the same directory that is then renamed over proxy.yml, so a reload never
   * reads a half-written file.
   */
  writeConfig(yaml: string): void;
  signal(name: NodeJS.Signals): void;
  /** Resolves with the next output line that contains `text` (or fails after `timeoutMs`). */
  waitForOutput(text: string, timeoutMs?: number): Promise<string>;
  /**
   * SIGKILL, as a crash: no drain, no clean-up (the pid file stays behind, naming a dead process).
   * Resolves once it has exited. The temp dir is kept for `restart()`; `stop()` removes it.
   */
  kill(): Promise<void>;
  /**
   * Starts the same gateway again once this process has exited (after `kill()`): same role, env,
   * port, proxy.yml and data dir. Use the returned process from then on (this one's `stop()`
   * would remove the directory they share).
   */
  restart(): Promise<GatewayProcess>;
  /** SIGTERM, then SIGKILL after 5 s; removes the temp dir. */
  stop(): Promise<number | null>;
  /** Resolves with the exit code once the process has exited (however it was stopped). */
  readonly exited: Promise<number | null>;
}

export interface GatewayProcessOptions {
  /** proxy.yml text; written to a temp dir. */
  config: string;
  args?: string[];
  env?: NodeJS.ProcessEnv;
  startTimeoutMs?: number;
  /**
   * `--role`. Default `data-plane`: without CONTROL_PLANE_URL that is the data plane alone on
   * proxy.yml, which is what the proxy tests exercise; `all` is the one-process gateway.
   */
  role?: 'all' | 'control-plane' | 'data-plane';
  /**
   * `--port`; default an ephemeral port. The control-plane role logs no "gateway listening" line,
   * so it is always started on a port chosen here (a free one unless given).
   */
  port?: number;
}

/** Everything needed to launch the same gateway again (restarts). */
interface LaunchSpec {
  readonly dir: { path: string; remove(): void };
  readonly configPath: string;
  readonly dataDir: string;
  readonly role: 'all' | 'control-plane' | 'data-plane';
  readonly port: number;
  readonly args: readonly string[];
  readonly env: NodeJS.ProcessEnv | undefined;
  readonly startTimeoutMs: number;
}

let tempSeq = 0;

/** Writes to a sibling temp file, then renames it over `target` (atomic on one file system). */
function writeFileAtomic(target: string, text: string): void {
  tempSeq += 1;
  const temp = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.${tempSeq}.tmp`);
  try {
    writeFileSync(temp, text);
    renameSync(temp, target);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/**
 * How long a start may take before the test gives up: a hang guard, not a speed check. An idle
 * one-process start takes about 2 s of CPU; on a loaded 2-core CI machine (two test files at once,
 * chromium beside them) a fresh data directory has been seen past 15 s.
 */
export const DEFAULT_START_TIMEOUT_MS = 45_000;

/**
 * Starts `gateway start` as a real child process (on an ephemeral port unless told) and resolves
 * once it listens.
 */
export async function startGatewayProcess(options: GatewayProcessOptions): Promise<GatewayProcess> {
  const dir = makeTempDir('gateway-e2e-');
  const configPath = path.join(dir.path, 'proxy.yml');
  writeFileSync(configPath, options.config);
  const role = options.role ?? 'data-plane';
  const port = options.port ?? (role === 'control-plane' ? await refusedPort() : 0);
  return launch({ dir, configPath, dataDir: path.join(dir.path, 'data'), role, port, args: options.args ?? [], env: options.env, startTimeoutMs: options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS });
}

async function launch(spec: LaunchSpec): Promise<GatewayProcess> {
  const child = spawn(
    process.execPath,
    [...GATEWAY_COMMAND, 'start', '--role', spec.role, '--config', spec.configPath, '--port', String(spec.port), '--host', '127.0.0.1', '--data-dir', spec.dataDir, ...spec.args],
    // No drain delay unless a test asks for one: every stop() would otherwise wait DRAIN_DELAY_SECONDS' default.
    { cwd: spec.dir.path, env: { ...process.env, LOG_LEVEL: 'info', DRAIN_DELAY_SECONDS: '0', ...spec.env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const output: string[] = [];
  const waiters: Array<{ text: string; resolve(line: string): void }> = [];
  const onLine = (line: string): void => {
    output.push(line);
    for (const waiter of [...waiters]) {
      if (line.includes(waiter.text)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  };
  for (const stream of [child.stdout, child.stderr]) {
    let pending = '';
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      lines.forEach(onLine);
    });
  }
  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => {
    exitCode = code;
    resolve(code);
  }));

  const waitForOutput = (text: string, timeoutMs = 10000): Promise<string> => {
    const seen = output.find((line) => line.includes(text));
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no output containing "${text}" within ${timeoutMs} ms; output:\n${output.join('\n')}`)), timeoutMs);
      waiters.push({ text, resolve: (line) => { clearTimeout(timer); resolve(line); } });
      void exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`gateway exited (${code}) before printing "${text}"; output:\n${output.join('\n')}`));
      });
    });
  };

  let port = spec.port;
  try {
    if (spec.role === 'control-plane') {
      // Logged once the control plane listens (the data plane logs its own "gateway listening").
      await waitForOutput('pid file written', spec.startTimeoutMs);
    } else {
      const listening = await waitForOutput('gateway listening', spec.startTimeoutMs);
      port = (JSON.parse(listening) as { port: number }).port;
    }
  } catch (error) {
    // A start that timed out must not leave a gateway behind (nor keep the test runner alive).
    if (exitCode === undefined) {
      child.kill('SIGKILL');
      await exited;
    }
    throw error;
  }
  const terminate = async (signal: NodeJS.Signals): Promise<void> => {
    if (exitCode !== undefined) return;
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    pid: child.pid ?? -1,
    child,
    dir: spec.dir.path,
    dataDir: spec.dataDir,
    configPath: spec.configPath,
    output,
    writeConfig: (yaml) => writeFileAtomic(spec.configPath, yaml),
    signal: (name) => child.kill(name),
    waitForOutput,
    exited,
    kill: () => terminate('SIGKILL'),
    restart: async () => {
      if (exitCode === undefined) throw new Error(`gateway ${child.pid} is still running; kill() it before restart()`);
      return launch({ ...spec, port });
    },
    stop: async () => {
      await terminate('SIGTERM');
      spec.dir.remove();
      return exitCode ?? null;
    },
  };
}
