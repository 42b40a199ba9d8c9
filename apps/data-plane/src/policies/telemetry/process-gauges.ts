import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type { ProcessGauges } from '@gateway/events';

/** Samples the process gauges of each telemetry window; the event-loop delay histogram restarts every window. */
export class ProcessGaugeSampler {
  private readonly delay: IntervalHistogram = monitorEventLoopDelay({ resolution: 10 });

  constructor(private readonly openConnections: () => number) {
    this.delay.enable();
  }

  sample(): ProcessGauges {
    const memory = process.memoryUsage();
    // The histogram holds nanoseconds; with no sample yet (the first ms) it reports NaN.
    const p99 = this.delay.count === 0 ? 0 : this.delay.percentile(99) / 1e6;
    this.delay.reset();
    return { heapUsedBytes: memory.heapUsed, rssBytes: memory.rss, eventLoopLagMs: Math.round(p99 * 1000) / 1000, openConnections: this.openConnections() };
  }

  close(): void {
    this.delay.disable();
  }
}
