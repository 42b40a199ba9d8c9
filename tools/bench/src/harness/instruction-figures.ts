import type { InstructionCount } from './callgrind';
import type { ForcedCollection } from './forced-gc';
import { median as medianOrUndefined } from './stats';

/** One counted batch of sequential requests (0 for the idle spell): its dump and how long it took. */
export interface Batch {
  readonly count: InstructionCount;
  readonly seconds: number;
  readonly requests: number;
}

/** A full collection forced between batches, counted on its own (never inside a batch). */
export interface Collection extends ForcedCollection {
  readonly count: InstructionCount;
}

/** Everything counted in one process (one variant, one round). */
export interface ProcessCount {
  readonly batches: readonly Batch[];
  /** One before every batch and one after the last; empty when collections are not forced. */
  readonly collections: readonly Collection[];
  /** The idle spell after the batches: no traffic, only what the clock drives. */
  readonly idle: Batch;
  /**
   * Pauses without traffic between the batches, each counted on its own (0 requests), of several
   * lengths: with the idle spell they tell the clock's work a second from a request's, which the
   * batches alone cannot (their seconds follow their requests).
   */
  readonly pauses: readonly Batch[];
}

export const median = (values: readonly number[]): number => medianOrUndefined(values) ?? Number.NaN;
export const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);
export const relativeSpread = (values: readonly number[]): number => (Math.max(...values) - Math.min(...values)) / median(values);

/** Request-driven instructions of a batch a request: everything but the timers phase (every thread, or the main thread's). */
export const batchNet = (b: Batch, thread: 'all' | 'main' = 'all'): number => (b.count[thread] - b.count.timers) / b.requests;

/**
 * The verdict's figure of a process: the median of its batches. Each batch starts right after a
 * full collection, so most hold only scavenges (charged to the requests that allocated), and a
 * major collection that falls into one batch of twelve moves the median by a step, not the figure
 * by a third as it did when batches were pooled.
 */
export const processMedian = (p: ProcessCount, thread: 'all' | 'main' = 'all'): number => median(p.batches.map((b) => batchNet(b, thread)));

/** Every batch pooled (total over requests): every collection that fell into a batch, charged in full. */
export const processMean = (p: ProcessCount): number => sum(p.batches.map((b) => b.count.all - b.count.timers)) / requestsOf(p);

/** Every request of a process's batches. */
export const requestsOf = (p: ProcessCount): number => sum(p.batches.map((b) => b.requests));

/**
 * The pooled batches plus the forced full collection after each one, charged to its requests:
 * a major collection every batch, far more often than a process collects on its own, so an upper
 * bound on what the old generation costs a request. NaN when collections are not forced.
 */
export const processMeanWithCollections = (p: ProcessCount): number =>
  p.collections.length === p.batches.length + 1 ? processMean(p) + sum(p.collections.slice(1).map((c) => c.count.gc)) / requestsOf(p) : Number.NaN;

/** The median batch with the timers phase left in. */
export const processGross = (p: ProcessCount): number => median(p.batches.map((b) => b.count.all / b.requests));

/** The collector's share of the batches' instructions (scavenges, and any major collection that fell into a batch). */
export const gcShare = (p: ProcessCount): number => sum(p.batches.map((b) => b.count.gc)) / sum(p.batches.map((b) => b.count.all));

/**
 * Bytes a request left in the old generation: what each batch added between the collection before
 * it and the one after it, over the batches' requests. This is what makes a process collect the
 * old generation, so a variant that keeps more shows here even where the median hides the collection.
 */
export const oldGenerationBytesPerRequest = (p: ProcessCount): number =>
  p.collections.length === p.batches.length + 1
    ? sum(p.batches.map((_, k) => (p.collections[k + 1] as Collection).oldGenerationBefore - (p.collections[k] as Collection).oldGenerationAfter)) / requestsOf(p)
    : Number.NaN;

/** A forced full collection's instructions (median over the process's collections). */
export const fullCollectionInstructions = (p: ProcessCount): number => median(p.collections.map((c) => c.count.gc));

/** Timers-phase instructions a second under traffic (the batches) and without (the idle spell). */
export const busyTimersRate = (p: ProcessCount): number => sum(p.batches.map((b) => b.count.timers)) / sum(p.batches.map((b) => b.seconds));
export const idleTimersRate = (p: ProcessCount): number => p.idle.count.timers / p.idle.seconds;

/** TurboFan's share of a process's last batch: a count is steady-state only when this is about 0. */
export const lastCompileShare = (p: ProcessCount): number => {
  const last = p.batches.at(-1);
  return last === undefined ? Number.NaN : last.count.compile / last.count.all;
};

/**
 * The share of a process's batches spent defining literal properties through V8's runtime
 * (InstructionCount.literalRuntime): ~0 in a process whose inline caches settled on compiled code,
 * ~25 % in one left on the runtime path by its warm-up. Processes of one comparison must agree on it.
 */
export const literalRuntimeShare = (p: ProcessCount): number => sum(p.batches.map((b) => b.count.literalRuntime)) / sum(p.batches.map((b) => b.count.all));

/**
 * The process's counts less what its main thread spent defining literals through V8's runtime
 * (InstructionCount.literalRuntime), every point alike. The figures are fitted on these: a process
 * whose warm-up left process.nextTick's literal on the runtime path is thereby counted without that
 * path *and without the compiled definition it replaced* (a few Ir a tick), so its figure is a lower
 * bound of its settled cost; a no-op for a process that never went there.
 */
export function withoutLiteralRuntime(p: ProcessCount): ProcessCount {
  const less = <T extends Batch | Collection>(b: T): T => ({ ...b, count: { ...b.count, all: b.count.all - b.count.literalRuntime, main: b.count.main - b.count.literalRuntime } });
  return { batches: p.batches.map(less), collections: p.collections.map(less), pauses: p.pauses.map(less), idle: less(p.idle) };
}
