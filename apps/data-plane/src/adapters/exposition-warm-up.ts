import type { CounterPart } from './registry-exposition';
import { BUCKET_COUNT, SeriesFamily, SLOT } from './series-family';

/**
 * Synthetic series per request family a warm-up round renders (two families, 13 + 1 lines each):
 * a round runs the render's loops a few thousand times, past what V8 needs to optimize them
 * (with 100 the loops were still interpreted at the first scrape: tools/bench/README.md, h-scrape3).
 */
const SERIES = 400;
/** Synthetic counter series (shaped as the policies' counters) a round renders. */
const COUNTER_SERIES = 1200;
/** Rounds, each its own task: V8 compiles on a background thread and installs the code at a later call. */
export const WARM_UP_ROUNDS = 6;
/** Durations in ms with fractions as performance.now() gives them, so sums take every branch of the number writer. */
const DURATIONS_MS = [0.8, 3.25, 7.5, 18.125, 42.7, 77.3, 180.6, 420.1, 900.9, 2100.4, 4800.2, 9000.5];
const METHODS = ['GET', 'POST'];
const STATUSES = [200, 404, 503];

/** What a warm-up round renders instead of the served request series and policy counters. */
export interface ExpositionScratch {
  readonly byPattern: SeriesFamily;
  readonly byId: SeriesFamily;
  readonly counters: readonly CounterPart[];
}

/**
 * A family of `SERIES` series made from bytes and numbers (SeriesFamily.prepared), not by
 * `add`/`record`: those run on the request path, and V8 keeps one set of type feedback per
 * function, so synthetic series through them became the request path's feedback (h-scrape3's
 * warm-up: +40k instructions a request; docs/data-plane.md "/metrics cardinality").
 */
function scratchFamily(labelsOf: (series: number) => string): SeriesFamily {
  const labels: string[] = [];
  const ends = new Int32Array(SERIES);
  const values = new Float64Array(SERIES * SLOT);
  let end = 0;
  for (let series = 0; series < SERIES; series += 1) {
    const text = labelsOf(series);
    labels.push(text);
    // ASCII: as many bytes as characters.
    end += text.length;
    ends[series] = end;
    // Counts of one and of several digits, every bucket, fractional sums.
    const count = 1 + (series % 40);
    const base = series * SLOT;
    values[base] = count;
    values[base + 1] = count * (DURATIONS_MS[series % DURATIONS_MS.length] as number);
    values[base + 2 + (series % BUCKET_COUNT)] = count;
  }
  return SeriesFamily.prepared(Buffer.from(labels.join('')), ends, values);
}

/**
 * Counters shaped as the served ones as `registryParts` lists them: prom-client's value objects
 * (`{ value, labels }`) with labels objects built key by key in label-name order, as prom-client
 * builds them, so the compiled loop meets the shapes of a scrape. Made here rather than through a
 * prom-client counter: the handle's `labels` (request path) calls prom-client's.
 */
function scratchCounters(labelNames: readonly (readonly string[])[]): CounterPart[] {
  const kinds = labelNames.length === 0 ? [['route']] : labelNames;
  const perCounter = Math.ceil(COUNTER_SERIES / kinds.length);
  return kinds.map((names, counter) => {
    // By hash, listed by Object.values as prom-client lists its hashMap: an array of the same
    // elements kind (holey), or the compiled loop deoptimizes on the first served counter.
    const byHash: Record<string, { value: number; labels: Record<string, string> }> = {};
    for (let series = 0; series < perCounter; series += 1) {
      const labels: Record<string, string> = {};
      for (const name of names) labels[name] = `warm-up-${series}`;
      byHash[`warm-up-${series}`] = { value: 1 + (series % 30), labels };
    }
    return { name: `warm_up_${counter}_total`, help: 'Scratch counter of the /metrics warm-up', values: Object.values(byHash) };
  });
}

/** The synthetic series of a warm-up: made once, rendered each round, dropped after the last. */
export function expositionScratch(counterLabelNames: readonly (readonly string[])[]): ExpositionScratch {
  return {
    byPattern: scratchFamily((s) => `method="${METHODS[s % METHODS.length] as string}",route="/warm-up/${s}/*",status="${STATUSES[s % STATUSES.length] as number}"`),
    byId: scratchFamily((s) => `route="warm-up-${s}",method="${METHODS[s % METHODS.length] as string}",status="${STATUSES[s % STATUSES.length] as number}"`),
    counters: scratchCounters(counterLabelNames),
  };
}

/** How a warm-up is scheduled: after `delayMs` of listening, then one round every `gapMs`. */
export interface WarmUpSchedule {
  readonly delayMs: number;
  readonly gapMs: number;
}

/**
 * A second after listening, so it counts neither into start-up nor into the answer to a readiness
 * poll, then a round every 50 ms, each its own task so that requests are served between them.
 */
export const WARM_UP_SCHEDULE: WarmUpSchedule = { delayMs: 1000, gapMs: 50 };

/**
 * Runs `round` WARM_UP_ROUNDS times on unref'd timers (a process with nothing else to do exits);
 * `done` gets the bytes rendered in all. The returned function cancels what has not run yet (the
 * plane's close). A failing round ends the warm-up quietly: it only spares the first scrape its
 * compilation.
 */
export function scheduleExpositionWarmUp(round: () => Promise<number>, schedule: WarmUpSchedule = WARM_UP_SCHEDULE, done?: (bytes: number) => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  let cancelled = false;
  let bytes = 0;
  let rounds = 0;
  const next = (delay: number): void => {
    timer = setTimeout(run, delay);
    timer.unref();
  };
  const run = (): void => {
    timer = undefined;
    round().then(
      (rendered) => {
        bytes += rendered;
        rounds += 1;
        if (cancelled) return;
        if (rounds < WARM_UP_ROUNDS) next(schedule.gapMs);
        else done?.(bytes);
      },
      () => undefined,
    );
  };
  next(schedule.delayMs);
  return () => {
    cancelled = true;
    if (timer !== undefined) clearTimeout(timer);
  };
}
