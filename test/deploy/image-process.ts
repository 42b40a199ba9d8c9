import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { refusedPort, request } from '@gateway/testing';
import { resolveEntrypoint, type ImageLayout } from './image-layout';

/** A gateway started from an image layout, as the container runtime would start it. */
export interface ImageProcess {
  readonly url: string;
  readonly pid: number;
  readonly output: string[];
  /** The process's argv as the kernel sees it (/proc/<pid>/cmdline). */
  commandLine(): string[];
  /** SIGTERM (what the kubelet sends); resolves with the exit code. */
  stop(): Promise<number | null>;
}

export interface ImageRunOptions {
  /** Container arguments after the ENTRYPOINT (Kubernetes `args`; the image's CMD when omitted). */
  readonly args?: readonly string[];
  /** Added to the image's ENV (Kubernetes `env`); container paths are rebased onto the layout. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly startTimeoutMs?: number;
}

/**
 * Runs the ENTRYPOINT with `args` plus `--port <free> --host 127.0.0.1`, as the image's USER, in
 * its WORKDIR, with its ENV (values that are absolute paths point into the layout), and resolves
 * once GET /health/serving answers 200. Everything in the layout is owned by root and the process
 * is not: like a read-only root file system, it can write only where the Dockerfile gave it a
 * directory (the data dir) and in /tmp.
 */
export async function startFromImage(layout: ImageLayout, options: ImageRunOptions = {}): Promise<ImageProcess> {
  const port = await refusedPort();
  // PATH finds this machine's node for the shebang's `env -S node`; a HOME that does not exist
  // shows the gateway needs none (a read-only root has no writable home).
  const env: NodeJS.ProcessEnv = { PATH: process.env['PATH'], HOME: '/nonexistent', LOG_LEVEL: 'info' };
  for (const [key, value] of Object.entries({ ...layout.env, ...options.env })) {
    if (value === undefined) continue;
    env[key] = value.startsWith('/') && !value.startsWith(layout.rootfs) ? layout.hostPath(value) : value;
  }
  const args = [...layout.entrypoint.slice(1), ...(options.args ?? layout.cmd), '--port', String(port), '--host', '127.0.0.1'];
  const child = spawn(resolveEntrypoint(layout), args, {
    cwd: layout.hostPath(layout.workdir),
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(layout.user === undefined ? {} : { uid: layout.user.uid, gid: layout.user.gid }),
  });
  const output: string[] = [];
  for (const stream of [child.stdout, child.stderr]) stream.setEncoding('utf8').on('data', (chunk: string) => output.push(...chunk.split('\n').filter((l) => l !== '')));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let exitCode: number | null | undefined;
  void exited.then((code) => (exitCode = code));
  const url = `http://127.0.0.1:${port}`;

  const deadline = Date.now() + (options.startTimeoutMs ?? 60_000);
  for (;;) {
    if (exitCode !== undefined) throw new Error(`${args.join(' ')} exited (${exitCode}) before serving; output:\n${output.join('\n')}`);
    const status = await request(`${url}/health/serving`, { timeoutMs: 2000 }).then((res) => res.status, () => 0);
    if (status === 200) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      await exited;
      throw new Error(`${args.join(' ')}: /health/serving never answered 200 (last: ${status}); output:\n${output.join('\n')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    url,
    pid: child.pid ?? -1,
    output,
    commandLine: () => readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0').filter((a) => a !== ''),
    stop: async () => {
      if (exitCode !== undefined) return exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
