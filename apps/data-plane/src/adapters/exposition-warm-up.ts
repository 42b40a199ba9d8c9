import type { CounterDefinition, CounterHandle, GaugeDefinition, GaugeReading } from '../engine/ports';
import { deferredCounter, countsOf } from './deferred-counter';
import { ExpositionWriter } from './exposition-writer';
import { gaugeExposition } from './gauge-exposition';
import { Registry, type Counter } from './prom-client-classes';
import { registryLines, registryParts, type CounterLinePrefixes } from './registry-exposition';
import { requestMetricsExposition } from './request-metrics-exposition';
import { RequestSeriesStore } from './request-series';

/**
 * Synthetic routes a warm-up round renders: each is two histogram series (26 lines) and two
 * counter lines, so a round runs the render's loops a few thousand times, past what V8 needs to
 * optimize them, for ~1 MB of text.
 */
const ROUTES = 400;
/** Rounds, each its own task: V8 compiles on a background thread, and installs the code at a later call. */
export const WARM_UP_ROUNDS = 6;
/**
 * Synthetic series of the scratch counters and of the gauge: about as many as a scrape has of a
 * policy counter or of breakers at a few thousand routes, so that their loops are optimized too.
 */
const POLICY_SERIES = 1200;
const METHODS = ['GET', 'POST'];
const STATUSES = [200, 404, 503];
/** Durations in ms that fall into every bucket, with fractions as performance.now() gives them. */
const DURATIONS_MS = [0.8, 3.25, 7.5, 18.125, 42.7, 77.3, 180.6, 420.1, 900.9, 2100.4, 4800.2, 9000.5];
const WARM_UP_GAUGE: GaugeDefinition = { name: 'gateway_warm_up_state', help: 'Scratch gauge of the warm-up', labelNames: ['breaker', 'kind'] };

/**
 * A store with the shape of real traffic (several methods, statuses, buckets, fractional sums),
 * made once per warm-up and never the served store: the warm-up creates no served series.
 */
function syntheticStore(): RequestSeriesStore {
  const store = new RequestSeriesStore();
  for (let route = 0; route < ROUTES; route += 1) {
    const method = METHODS[route % METHODS.length] as string;
    const status = STATUSES[route % STATUSES.length] as number;
    const duration = DURATIONS_MS[route % DURATIONS_MS.length] as number;
    store.observe(`warm-up-${route}`, `/warm-up/${route}/*`, method, status, duration);
    store.observe(`warm-up-${route}`, `/warm-up/${route}/*`, method, status, duration * 3);
  }
  return store;
}

/** One labels array per series, kept across rounds, as the breaker registry keeps them. */
function syntheticGaugeLabels(): (readonly string[])[] {
  const labels: (readonly string[])[] = [];
  for (let i = 0; i < POLICY_SERIES; i += 1) labels.push([`warm-up-${i}`, i % 2 === 0 ? 'route' : 'upstream']);
  return labels;
}

/** Readings made as a reader makes them (a generator of fresh objects), so the compiled loop sees the same shapes as on a scrape. */
function* syntheticReadings(labels: readonly (readonly string[])[]): Iterable<GaugeReading> {
  for (let i = 0; i < labels.length; i += 1) yield { labels: labels[i] as readonly string[], value: i % 3 };
}

/**
 * What a scrape runs, on synthetic series and into a writer whose chunks are dropped: the request
 * metrics render, a scrape-time gauge, and a registry of its own with counters shaped as the
 * served ones (registry-exposition.ts). The first scrape after a start otherwise runs all of it in V8's interpreter and
 * pays for its compilation (issue 19, docs/data-plane.md "/metrics cardinality": the warm-up).
 * Nothing here touches the served metrics: the store, counter, gauge and registry are scratch.
 */
export class ExpositionWarmUp {
  private readonly store = syntheticStore();
  private readonly gaugeLabels = syntheticGaugeLabels();
  private readonly registry = new Registry();
  /** Scratch counters with the served counters' label names (prom-client's label objects get the same shapes), in a registry of their own. */
  private readonly counters: { readonly handle: CounterHandle; readonly labelCount: number }[];

  private readonly ownCounters = new Set<Counter>();
  private readonly prefixes: CounterLinePrefixes = new WeakMap();
  private readonly gaugePrefixes = new WeakMap<readonly string[], string>();

  constructor(definitions: readonly CounterDefinition[]) {
    this.counters = definitions.map((definition) => {
      const counter = deferredCounter({ ...definition, name: `warm_up_${definition.name}` }, this.registry);
      this.ownCounters.add(counter);
      return { handle: countsOf(counter), labelCount: definition.labelNames.length };
    });
  }

  /** One round; resolves with the bytes rendered (all dropped). */
  async round(): Promise<number> {
    for (let i = 0; i < POLICY_SERIES; i += 1) {
      const counter = this.counters[i % Math.max(1, this.counters.length)];
      counter?.handle.labels(...Array.from({ length: counter.labelCount }, (_, label) => `warm-up-${i}-${label}`)).inc();
    }
    const out = new ExpositionWriter();
    let bytes = 0;
    for (const chunk of registryLines(out, await registryParts(this.registry, this.ownCounters), this.prefixes)) bytes += this.drop(out, chunk);
    for (const chunk of gaugeExposition(out, WARM_UP_GAUGE, syntheticReadings(this.gaugeLabels), this.gaugePrefixes)) bytes += this.drop(out, chunk);
    out.newline();
    for (const chunk of requestMetricsExposition(this.store, out)) bytes += this.drop(out, chunk);
    for (const chunk of out.finish()) bytes += chunk.length;
    return bytes;
  }

  /** A chunk the scrape would have sent: given back for reuse, as the response does. */
  private drop(out: ExpositionWriter, chunk: Buffer): number {
    out.recycle(chunk);
    return chunk.length;
  }
}

/** How a warm-up is scheduled: after `delayMs` of listening, then one round every `gapMs`. */
export interface WarmUpSchedule {
  readonly delayMs: number;
  readonly gapMs: number;
}

/**
 * After listening: a second later, so it counts neither into start-up nor into the answer to a
 * readiness poll, then a round every 50 ms, each its own task so requests are served between them
 * (the first round, interpreted, ~100 ms of CPU at a load of 16; the later ones a few ms to ~25 ms:
 * tools/bench/README.md "The first /metrics scrape at 10,000 routes, warmed up").
 */
export const WARM_UP_SCHEDULE: WarmUpSchedule = { delayMs: 1000, gapMs: 50 };

/**
 * Runs the warm-up's rounds on unref'd timers (a process with nothing else to do exits); the
 * returned function cancels what has not run yet (the plane's close). A failing round ends the
 * warm-up quietly: it only spares the first scrape its compilation.
 */
export function scheduleExpositionWarmUp(create: () => ExpositionWarmUp, schedule: WarmUpSchedule = WARM_UP_SCHEDULE, done?: (bytes: number) => void): () => void {
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
    const warmUp = (state.warmUp ??= create());
    warmUp.round().then(
      (rendered) => {
        bytes += rendered;
        rounds += 1;
        if (cancelled) return;
        if (rounds < WARM_UP_ROUNDS) next(schedule.gapMs);
        else {
          state.warmUp = undefined;
          done?.(bytes);
        }
      },
      () => {
        state.warmUp = undefined;
      },
    );
  };
  const state: { warmUp?: ExpositionWarmUp } = {};
  next(schedule.delayMs);
  return () => {
    cancelled = true;
    if (timer !== undefined) clearTimeout(timer);
  };
}
