import { readFileSync } from 'node:fs';
import { totalmem } from 'node:os';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type { ProcessTick } from '@gateway/events';

/** The memory limit of this host or container: cgroup v2 `memory.max` (v1 `limit_in_bytes`), else the machine's memory. */
export function hostMemoryLimitBytes(): number {
  for (const file of ['/sys/fs/cgroup/memory.max', '/sys/fs/cgroup/memory/memory.limit_in_bytes']) {
    try {
      const value = Number(readFileSync(file, 'utf8').trim());
      // "max" (no limit) parses as NaN; v1 reports "no limit" as a huge number.
      if (Number.isFinite(value) && value > 0 && value < totalmem() * 4) return value;
    } catch {
      // not in a cgroup with a limit: fall through
    }
  }
  return totalmem();
}

/** This control plane's own gauges for CAPACITY_WARNING (the data planes' come with their windows). */
export class ControlPlaneGauges {
  private readonly delay: IntervalHistogram = monitorEventLoopDelay({ resolution: 20 });

  constructor(private readonly instanceId: string) {
    this.delay.enable();
  }

  /** RSS and the event-loop delay p99 since the previous sample. */
  sample(): ProcessTick {
    const lagMs = this.delay.count > 0 ? this.delay.percentile(99) / 1e6 : 0;
    this.delay.reset();
    return { instanceId: this.instanceId, role: 'control-plane', rssBytes: process.memoryUsage.rss(), eventLoopLagMs: lagMs, openConnections: 0 };
  }

  stop(): void {
    this.delay.disable();
  }
}
