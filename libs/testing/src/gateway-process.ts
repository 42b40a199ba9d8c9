import { spawn, type ChildProcess } from 'node:child_process';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeTempDir } from './temp-dir';

/** The repository root, found from this file's place in libs/testing/dist. */
export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
export const GATEWAY_BIN = path.join(REPO_ROOT, 'apps', 'cli', 'bin', 'gateway.js');

export interface GatewayProcess {
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  readonly child: ChildProcess;
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
  /** SIGTERM, then SIGKILL after 5 s; removes the temp dir. */
  stop(): Promise<number | null>;
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
 * Starts `gateway start` as a real child process on an ephemeral port and resolves once it logs
 * that it is listening.
 */
export async function startGatewayProcess(options: GatewayProcessOptions): Promise<GatewayProcess> {
  const dir = makeTempDir('gateway-e2e-');
  const configPath = path.join(dir.path, 'proxy.yml');
  const dataDir = path.join(dir.path, 'data');
  writeFileSync(configPath, options.config);
  const child = spawn(
    process.execPath,
    [GATEWAY_BIN, 'start', '--role', options.role ?? 'data-plane', '--config', configPath, '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir, ...(options.args ?? [])],
    { cwd: dir.path, env: { ...process.env, LOG_LEVEL: 'info', ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] },
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

  let listening: string;
  try {
    listening = await waitForOutput('gateway listening', options.startTimeoutMs ?? 15000);
  } catch (error) {
    // A gateway that did not start in time must not outlive the test (nor keep its runner alive).
    if (exitCode === undefined) {
      child.kill('SIGKILL');
      await exited;
    }
    dir.remove();
    throw error;
  }
  const port = (JSON.parse(listening) as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    pid: child.pid ?? -1,
    child,
    dataDir,
    configPath,
    output,
    writeConfig: (yaml) => writeFileAtomic(configPath, yaml),
    signal: (name) => child.kill(name),
    waitForOutput,
    stop: async () => {
      if (exitCode === undefined) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
      dir.remove();
      return exitCode ?? null;
    },
  };
}
