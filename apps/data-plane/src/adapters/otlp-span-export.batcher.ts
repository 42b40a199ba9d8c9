import { ExportResultCode, type ExportResult } from '@opentelemetry/core';

export interface BatchSettings {
  /** Items queued or being exported; past it, `add` refuses. */
  readonly maxQueueSize: number;
  /** Items per export; a full batch leaves at once. */
  readonly maxExportBatchSize: number;
  /** ms a partial batch waits before it leaves. */
  readonly scheduledDelay: number;
  /** ms one export may take before it is counted as failed. */
  readonly timeout: number;
}

/** Sends one batch and calls `done` once with how it ended (the OTLP exporter's `export`). */
export type SendBatch<T> = (batch: T[], done: (result: ExportResult) => void) => void;

/**
 * The batching of the SDK's BatchSpanProcessor, kept to what the gateway needs: a bounded queue
 * (an item past `maxQueueSize`, counting the batch being exported, is refused so the caller can
 * count it), one export at a time, a full batch exported at once and a partial one after
 * `scheduledDelay`, each export bounded by `timeout`, and every batch's end reported to `settled`
 * exactly once (a late answer after the timeout is ignored). The processor itself is not used
 * because it takes only SDK spans: building one costs a request far more than the export
 * (docs/tracing.md, "Cost").
 */
export class ExportBatcher<T> {
  private queue: T[] = [];
  private pending = 0;
  private exporting: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly settings: BatchSettings,
    private readonly send: SendBatch<T>,
    private readonly settled: (count: number, result: ExportResult) => void,
  ) {}

  /** Items queued or being exported. */
  get size(): number {
    return this.pending;
  }

  /** Queues `item`, or returns false when the queue is full (or closed). */
  add(item: T): boolean {
    if (this.closed || this.pending >= this.settings.maxQueueSize) return false;
    this.pending += 1;
    this.queue.push(item);
    if (this.exporting === undefined) this.schedule();
    return true;
  }

  /** Exports everything queued (each batch bounded by the timeout) and refuses items from now on. */
  async close(): Promise<void> {
    this.closed = true;
    this.clearTimer();
    await this.exporting;
    const batches: Promise<void>[] = [];
    while (this.queue.length > 0) batches.push(this.exportBatch());
    await Promise.all(batches);
  }

  private schedule(): void {
    if (this.closed || this.queue.length === 0) return;
    if (this.queue.length >= this.settings.maxExportBatchSize) {
      this.clearTimer();
      this.exporting = this.exportBatch().then(() => {
        this.exporting = undefined;
        this.schedule();
      });
      return;
    }
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.exporting = this.exportBatch().then(() => {
        this.exporting = undefined;
        this.schedule();
      });
    }, this.settings.scheduledDelay);
    // A partial batch waiting does not keep the process alive (close() exports it).
    this.timer.unref();
  }

  private exportBatch(): Promise<void> {
    const { maxExportBatchSize, timeout } = this.settings;
    let batch: T[];
    if (this.queue.length <= maxExportBatchSize) {
      batch = this.queue;
      this.queue = [];
    } else batch = this.queue.splice(0, maxExportBatchSize);
    return new Promise((resolve) => {
      let over = false;
      const finish = (result: ExportResult): void => {
        if (over) return;
        over = true;
        clearTimeout(guard);
        this.pending -= batch.length;
        this.settled(batch.length, result);
        resolve();
      };
      const guard = setTimeout(() => finish({ code: ExportResultCode.FAILED, error: new Error(`span export did not end within ${timeout} ms`) }), timeout);
      try {
        this.send(batch, finish);
      } catch (error) {
        finish({ code: ExportResultCode.FAILED, error: error instanceof Error ? error : new Error(String(error)) });
      }
    });
  }

  private clearTimer(): void {
    if (this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
