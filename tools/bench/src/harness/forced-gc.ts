import path from 'node:path';
import type { ManagedProcess } from './processes';

/** The signal servers/gc-on-signal.ts answers with a full collection. */
const COLLECT_SIGNAL = 'SIGUSR2';

/** Node flags that let the harness collect a process's garbage on demand (`ForcedGc`). */
export const FORCED_GC_NODE_FLAGS: readonly string[] = ['--expose-gc', '--require', path.join(__dirname, '..', 'servers', 'gc-on-signal.js')];

/** What one forced full collection found: the old generation's bytes in use before and after it. */
export interface ForcedCollection {
  readonly oldGenerationBefore: number;
  readonly oldGenerationAfter: number;
}

interface CollectionReport extends Partial<ForcedCollection> {
  readonly bench: 'gc';
  readonly seq: number;
  readonly error?: string;
}

function parseReport(line: string): CollectionReport | undefined {
  if (!line.startsWith('{"bench":"gc"')) return undefined;
  try {
    return JSON.parse(line) as CollectionReport;
  } catch {
    return undefined;
  }
}

/**
 * Full garbage collections in a process started with FORCED_GC_NODE_FLAGS: a signal, then the
 * line the preload prints once the collection is over (numbered, so an earlier answer never
 * passes for a later one).
 */
export class ForcedGc {
  private sent = 0;

  constructor(
    private readonly managed: ManagedProcess,
    private readonly timeoutMs: number,
  ) {}

  async collect(): Promise<ForcedCollection> {
    this.sent += 1;
    const seq = this.sent;
    process.kill(this.managed.pid, COLLECT_SIGNAL);
    const report = parseReport(await this.managed.waitForLine((line) => parseReport(line)?.seq === seq, this.timeoutMs)) as CollectionReport;
    if (report.error !== undefined || report.oldGenerationBefore === undefined || report.oldGenerationAfter === undefined) {
      throw new Error(`${this.managed.name}: forced collection ${seq} failed: ${report.error ?? 'no heap figures in its answer'}`);
    }
    return { oldGenerationBefore: report.oldGenerationBefore, oldGenerationAfter: report.oldGenerationAfter };
  }
}
