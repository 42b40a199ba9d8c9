import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import type { ManagedProcess, ProcessRegistry } from './processes';

/**
 * Hardware counters of the proxy process, read with `perf stat` (Debian: linux-perf). They count
 * only while the proxy's threads are on a CPU, user and kernel mode, so cycles and instructions
 * per request are a property of the proxy's code path, unlike CPU-seconds, which come in whole
 * scheduler ticks and include time the vCPU was stalled by the hypervisor or a busy neighbour.
 */
export const COUNTER_EVENTS = ['instructions', 'cycles'] as const;
export type CounterEvent = (typeof COUNTER_EVENTS)[number];

export type CounterSupport =
  | {
    readonly available: true;
    /** `perf --version`. */
    readonly perf: string;
    /** Events as perf names them (`cycles:u` when kernel.perf_event_paranoid keeps kernel mode out). */
    readonly events: readonly string[];
    /** Only user-mode cycles and instructions are counted (the kernel's share of each request is not). */
    readonly userOnly: boolean;
  }
  | { readonly available: false; readonly reason: string };

export interface CounterReading {
  /** undefined when perf reported the event as `<not counted>` or `<not supported>`. */
  readonly instructions: number | undefined;
  readonly cycles: number | undefined;
  /** What perf said about events it could not count, for the warnings. */
  readonly notes: readonly string[];
}

interface ParsedCounters {
  readonly counts: Record<CounterEvent, number | undefined>;
  /** Event names exactly as perf printed them. */
  readonly names: string[];
  readonly notes: string[];
}

/**
 * Parses `perf stat -x,` output: one line per event, first field the count (or `<not counted>` /
 * `<not supported>`), third the event name (`cycles`, `cycles:u`, `cpu_core/cycles/`). Comment
 * lines (`# started on ...`) and anything without fields are skipped; lines of the same event
 * (hybrid CPUs print one per core type) are added up.
 */
export function parsePerfCsv(text: string): ParsedCounters {
  const counts: Record<CounterEvent, number | undefined> = { instructions: undefined, cycles: undefined };
  const seen = new Set<CounterEvent>();
  const names: string[] = [];
  const notes: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const fields = line.split(',');
    if (fields.length < 3) continue;
    const [countText, , eventText] = fields as [string, string, string];
    const event = eventText.trim().replace(/:[a-zA-Z]+$/, '').replace(/^[^/]*\/([^/]+)\/$/, '$1');
    if (!(COUNTER_EVENTS as readonly string[]).includes(event)) continue;
    const key = event as CounterEvent;
    names.push(eventText.trim());
    const count = countText.trim().startsWith('<') ? Number.NaN : Number(countText);
    if (!Number.isFinite(count)) {
      notes.push(`${eventText.trim()}: ${countText.trim()}`);
      seen.add(key);
      counts[key] = undefined;
      continue;
    }
    // A core type that did not count makes the sum meaningless: keep it undefined.
    if (seen.has(key) && counts[key] === undefined) continue;
    counts[key] = (counts[key] ?? 0) + count;
    seen.add(key);
  }
  for (const event of COUNTER_EVENTS) if (!seen.has(event)) notes.push(`${event}: missing from perf's output`);
  return { counts, names, notes };
}

function firstLine(text: string | undefined): string {
  return (text ?? '').split('\n').map((l) => l.trim()).find((l) => l !== '') ?? '';
}

/**
 * Checked once at startup: `perf` runs, counts instructions and cycles (`perf stat -e
 * instructions,cycles true`), and has `stat --control` (to start and stop counting exactly around
 * a measurement).
 */
export function checkCounterSupport(): CounterSupport {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-perf-check-'));
  try {
    const output = path.join(dir, 'check.csv');
    const run = spawnSync('perf', ['stat', '-x,', '-e', COUNTER_EVENTS.join(','), '-o', output, '--', 'true'], { encoding: 'utf8', timeout: 10_000 });
    if (run.error) {
      const code = (run.error as NodeJS.ErrnoException).code;
      return { available: false, reason: code === 'ENOENT' ? 'perf is not installed (Debian: linux-perf)' : `perf did not run: ${run.error.message}` };
    }
    if (run.status !== 0) return { available: false, reason: `\`perf stat\` failed: ${firstLine(run.stderr) || `exit ${String(run.status ?? run.signal)}`}` };
    const parsed = parsePerfCsv(readFileSync(output, 'utf8'));
    const missing = COUNTER_EVENTS.filter((e) => parsed.counts[e] === undefined || parsed.counts[e] === 0);
    if (missing.length > 0) {
      return { available: false, reason: `no hardware counters here (\`perf stat -e ${COUNTER_EVENTS.join(',')} true\`: ${parsed.notes.join('; ') || `${missing.join(', ')} counted 0`})` };
    }
    const help = spawnSync('perf', ['stat', '-h'], { encoding: 'utf8', timeout: 10_000 });
    if (!`${help.stdout ?? ''}${help.stderr ?? ''}`.includes('--control')) {
      return { available: false, reason: 'this perf has no `perf stat --control` (needed to count exactly the measured interval)' };
    }
    const version = spawnSync('perf', ['--version'], { encoding: 'utf8', timeout: 10_000 });
    return {
      available: true,
      perf: firstLine(version.stdout) || 'perf',
      events: parsed.names,
      userOnly: parsed.names.length > 0 && parsed.names.every((n) => /:u$/.test(n)),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One line for the report and the log. */
export function describeCounterSupport(support: CounterSupport): string {
  if (!support.available) return `not available (${support.reason}); no cycles/req and instr/req columns, their goal lines read "not measured"`;
  const mode = support.userOnly ? 'user mode only (kernel.perf_event_paranoid keeps kernel mode out)' : 'user and kernel mode';
  return `${support.perf}, \`perf stat -e ${COUNTER_EVENTS.join(',')} -p <proxy pid>\` around each measurement, ${mode}`;
}

const COMMAND_TIMEOUT_MS = 5000;
const EXIT_TIMEOUT_MS = 5000;

/**
 * A `perf stat` attached to the proxy's processes, counting only between `enable` and `disable`:
 * it starts with its events disabled (`-D -1`) and takes `enable` / `disable` on its fd 3,
 * acknowledging each on fd 4 (`--control fd:3,4`), so counting starts and stops at a known moment
 * rather than whenever perf has finished attaching. The process goes through the registry, so it is
 * stopped with everything else on errors, Ctrl-C and SIGTERM; `close` ends it with SIGINT (perf
 * then writes the counts to its `-o` file).
 */
export class CounterSession {
  private acks = 0;
  private ackText = '';
  private readonly ackListeners = new Set<() => void>();

  private constructor(
    private readonly managed: ManagedProcess,
    private readonly outputPath: string,
  ) {
    const ack = managed.child.stdio[4] as Readable;
    ack.setEncoding('utf8');
    ack.on('data', (chunk: string) => {
      // perf writes "ack\n" (followed by a NUL) per command.
      this.ackText += chunk;
      const parts = this.ackText.split('ack\n');
      this.acks += parts.length - 1;
      this.ackText = parts[parts.length - 1] ?? '';
      for (const listener of [...this.ackListeners]) listener();
    });
  }

  /** Attaches perf to `pids` (events disabled) and enables counting once perf is ready. */
  static async open(registry: ProcessRegistry, pids: readonly number[]): Promise<CounterSession> {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-perf-'));
    const outputPath = path.join(dir, 'counters.csv');
    let managed: ManagedProcess;
    try {
      managed = registry.spawn('perf', 'perf', {
        args: ['stat', '-x,', '-e', COUNTER_EVENTS.join(','), '-p', pids.join(','), '-o', outputPath, '-D', '-1', '--control', 'fd:3,4'],
        extraPipes: 2,
        cleanup: () => rmSync(dir, { recursive: true, force: true }),
      });
    } catch (error) {
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
    const session = new CounterSession(managed, outputPath);
    try {
      await session.command('enable');
    } catch (error) {
      await session.abort();
      throw error;
    }
    return session;
  }

  /** Stops counting, ends perf (SIGINT) and returns what it counted between enable and now. */
  async close(): Promise<CounterReading> {
    try {
      await this.command('disable');
      this.managed.child.kill('SIGINT');
      const exited = await Promise.race([
        this.managed.exited.then(() => true),
        new Promise<false>((resolve) => setTimeout(() => resolve(false), EXIT_TIMEOUT_MS).unref()),
      ]);
      if (!exited) throw new Error(`perf did not exit within ${EXIT_TIMEOUT_MS} ms of SIGINT`);
      let text: string;
      try {
        text = readFileSync(this.outputPath, 'utf8');
      } catch {
        throw new Error(`perf wrote no counts; output: ${this.managed.output.join(' | ')}`);
      }
      const { counts, notes } = parsePerfCsv(text);
      return { instructions: counts.instructions, cycles: counts.cycles, notes };
    } finally {
      await this.abort();
    }
  }

  /** Ends perf without reading anything (SIGTERM, then SIGKILL); removes its temp dir. */
  async abort(): Promise<void> {
    await this.managed.stop();
  }

  /** Sends `enable` or `disable` and waits for perf's acknowledgement. */
  private command(name: 'enable' | 'disable'): Promise<void> {
    const want = this.acks + 1;
    return new Promise<void>((resolve, reject) => {
      const done = (error?: Error): void => {
        clearTimeout(timer);
        this.ackListeners.delete(check);
        if (error) reject(error);
        else resolve();
      };
      const check = (): void => {
        if (this.acks >= want) done();
      };
      const timer = setTimeout(() => done(new Error(`perf did not acknowledge "${name}" within ${COMMAND_TIMEOUT_MS} ms; output: ${this.managed.output.join(' | ')}`)), COMMAND_TIMEOUT_MS);
      this.ackListeners.add(check);
      void this.managed.exited.then((code) => done(new Error(`perf exited (${String(code)}) before acknowledging "${name}"; output: ${this.managed.output.join(' | ')}`)));
      (this.managed.child.stdio[3] as Writable).write(`${name}\n`);
      check();
    });
  }
}
