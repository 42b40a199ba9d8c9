import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const STOP_GRACE_MS = 5000;

/** A child process started by the harness. */
export interface ManagedProcess {
  readonly name: string;
  readonly pid: number;
  readonly child: ChildProcess;
  /** Every stdout/stderr line so far (servers under test log little; the gateway runs at warn). */
  readonly output: string[];
  /** Resolves with the exit code (or signal name) once the process has exited. */
  readonly exited: Promise<number | string | null>;
  hasExited(): boolean;
  /** Resolves with the first output line (past or future) `match` accepts; rejects on exit or timeout. */
  waitForLine(match: (line: string) => boolean, timeoutMs: number): Promise<string>;
  /** `signal` (SIGTERM unless told), then SIGKILL after a grace period. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export interface SpawnOptions {
  readonly args: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /** Runs once the process has been stopped (temp dirs). */
  readonly cleanup?: () => void;
  /** Extra pipes after stdin, stdout and stderr: the child's fd 3, 4, ... (`child.stdio[3]`, ...). */
  readonly extraPipes?: number;
}

/**
 * Owns every child process of a bench run. `stopAll` ends them in reverse start order; the `exit`
 * hook installed by main.ts calls `killAllNow` so nothing outlives the bench even on a crash.
 */
export class ProcessRegistry {
  private readonly running: ManagedProcess[] = [];
  private readonly cleanups = new Map<ManagedProcess, () => void>();

  spawn(name: string, command: string, options: SpawnOptions): ManagedProcess {
    const child = spawn(command, [...options.args], {
      cwd: options.cwd,
      env: options.env ?? process.env,
      // stdin stays open: the bench servers exit when it closes (the harness died).
      stdio: ['pipe', 'pipe', 'pipe', ...Array.from({ length: options.extraPipes ?? 0 }, () => 'pipe' as const)],
    });
    if (child.pid === undefined) {
      // spawn failures surface as an 'error' event; make sure it is not unhandled.
      child.on('error', () => undefined);
      throw new Error(`could not start ${name} (${command})`);
    }
    const output: string[] = [];
    const listeners = new Set<(line: string) => void>();
    child.stdin.on('error', () => undefined);
    for (const extra of child.stdio.slice(3)) extra?.on('error', () => undefined);
    for (const stream of [child.stdout, child.stderr]) {
      let pending = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        pending += chunk;
        const lines = pending.split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) {
          output.push(line);
          for (const listener of [...listeners]) listener(line);
        }
      });
    }
    let exitedFlag = false;
    const exited = new Promise<number | string | null>((resolve) => {
      child.on('error', () => undefined);
      child.on('exit', (code, signal) => {
        exitedFlag = true;
        resolve(code ?? signal);
      });
    });

    const managed: ManagedProcess = {
      name,
      pid: child.pid,
      child,
      output,
      exited,
      hasExited: () => exitedFlag,
      waitForLine: (match, timeoutMs) => {
        const seen = output.find(match);
        if (seen !== undefined) return Promise.resolve(seen);
        return new Promise<string>((resolve, reject) => {
          const done = (): void => {
            clearTimeout(timer);
            listeners.delete(listener);
          };
          const listener = (line: string): void => {
            if (!match(line)) return;
            done();
            resolve(line);
          };
          const timer = setTimeout(() => {
            done();
            reject(new Error(`${name}: no expected output within ${timeoutMs} ms; output:\n${output.join('\n')}`));
          }, timeoutMs);
          listeners.add(listener);
          void exited.then((code) => {
            done();
            reject(new Error(`${name} exited (${String(code)}) before it was ready; output:\n${output.join('\n')}`));
          });
        });
      },
      stop: async (signal = 'SIGTERM') => {
        if (!exitedFlag) {
          child.kill(signal);
          const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
          await exited;
          clearTimeout(timer);
        }
        this.forget(managed);
      },
    };
    this.running.push(managed);
    if (options.cleanup) this.cleanups.set(managed, options.cleanup);
    return managed;
  }

  /** The processes running now, oldest first (a caller diffs two of these to know what it started). */
  snapshot(): readonly ManagedProcess[] {
    return [...this.running];
  }

  /** Stops every process still running, newest first. */
  async stopAll(): Promise<void> {
    for (const managed of [...this.running].reverse()) await managed.stop();
  }

  /** Synchronous last resort for process 'exit': SIGKILL whatever is left. */
  killAllNow(): void {
    for (const managed of this.running) {
      if (!managed.hasExited()) managed.child.kill('SIGKILL');
    }
    for (const managed of [...this.running]) this.forget(managed);
  }

  private forget(managed: ManagedProcess): void {
    const index = this.running.indexOf(managed);
    if (index >= 0) this.running.splice(index, 1);
    const cleanup = this.cleanups.get(managed);
    this.cleanups.delete(managed);
    try {
      cleanup?.();
    } catch {
      // best effort (temp dir already gone)
    }
  }
}

/** The line a bench child server prints once it listens (see src/servers/announce.ts). */
export interface ListeningAnnouncement {
  readonly bench: 'listening';
  readonly port: number;
}

export function parseAnnouncement(line: string): ListeningAnnouncement | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const value = JSON.parse(line) as Partial<ListeningAnnouncement>;
    return value.bench === 'listening' && typeof value.port === 'number' ? { bench: 'listening', port: value.port } : undefined;
  } catch {
    return undefined;
  }
}

/** A server under test running in its own process on 127.0.0.1. */
export interface ServerProcess {
  readonly name: string;
  readonly origin: string;
  readonly port: number;
  readonly pid: number;
  readonly process: ManagedProcess;
}

/** Node flags for a process under test: `--cpu-prof` into the profile dir when profiling. */
export function profileFlags(profileDir: string | undefined, name: string): string[] {
  return profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${name}.cpuprofile`] : [];
}

/** How a bench server is started under a wrapper (callgrind): the same fields as the gateway's launch. */
export interface BenchServerLaunch {
  /** A command node runs under (`['valgrind', '--tool=callgrind', ...]`); the pid is node's. */
  readonly wrapper?: readonly string[];
  readonly nodeFlags?: readonly string[];
  /** How long it may take to announce its port (default 10 s). */
  readonly startTimeoutMs?: number;
}

/** Starts one of the compiled scripts in src/servers as its own node process and waits for it to listen. */
export async function startBenchServer(
  registry: ProcessRegistry,
  name: string,
  script: string,
  args: readonly string[],
  profileDir?: string,
  launch: BenchServerLaunch = {},
): Promise<ServerProcess> {
  const scriptPath = path.join(__dirname, '..', 'servers', `${script}.js`);
  const wrapper = launch.wrapper ?? [];
  const nodeArgs = [...(launch.nodeFlags ?? []), ...profileFlags(profileDir, name), scriptPath, ...args];
  const managed = registry.spawn(name, wrapper[0] ?? process.execPath, { args: wrapper.length > 0 ? [...wrapper.slice(1), process.execPath, ...nodeArgs] : nodeArgs });
  const line = await managed.waitForLine((l) => parseAnnouncement(l) !== undefined, launch.startTimeoutMs ?? 10_000);
  const port = (parseAnnouncement(line) as ListeningAnnouncement).port;
  return { name, origin: `http://127.0.0.1:${port}`, port, pid: managed.pid, process: managed };
}
