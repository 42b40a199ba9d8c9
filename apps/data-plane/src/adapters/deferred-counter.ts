import { Counter, type Registry } from './prom-client-classes';
import type { BoundCounter, CounterDefinition, CounterHandle } from '../engine/ports';

/** prom-client's value object for one label set, in the counter's `hashMap` (not in its types). */
interface PromValue {
  value: number;
}

/** The part of prom-client's Counter the flush reads beyond its types (lib/counter.js). */
interface PromCounterInternals {
  readonly hashMap?: Record<string, PromValue | undefined>;
}

/** One label set's increments since the last scrape. */
class PendingCount implements BoundCounter {
  pending = 0;
  /** prom-client's value object for this label set after the first flush, its key and the map it is in. */
  entry: PromValue | undefined = undefined;
  hash = '';
  map: Record<string, PromValue | undefined> | undefined = undefined;

  constructor(readonly values: readonly string[]) {}

  inc(): void {
    this.pending += 1;
  }
}

/**
 * The bound label sets of one counter. prom-client's own bound counter hashes its labels into a
 * string and validates them on every `inc()`: per request (an upstream target's outcome, a cache
 * lookup) that was over 1 % of a proxied request's CPU. Here `inc()` adds to a number, and the
 * counts go into prom-client when it collects the counter (a scrape, or a test reading it).
 */
class PendingCounts implements CounterHandle {
  private readonly bound = new Map<string, PendingCount>();

  constructor(private readonly counter: Counter) {}

  labels(...values: string[]): BoundCounter {
    const key = values.join('\u0000');
    let bound = this.bound.get(key);
    if (bound === undefined) {
      // prom-client checks the label count here, once, rather than at the scrape that flushes.
      this.counter.labels(...values);
      bound = new PendingCount(values);
      this.bound.set(key, bound);
    }
    return bound;
  }

  /**
   * Adds each label set's pending count to prom-client's value for it. After a label set's first
   * flush the value object is added to directly: prom-client's `labels(...).inc(n)` rebuilds a
   * labels object and hashes it into a string each time, which was ~10-15 ms of the first scrape
   * at 10,000 routes (2,500 cache-lookup series). When the counter was reset or the series
   * removed (the map or its entry is another), prom-client's own path is taken again.
   */
  flush(): void {
    const map = (this.counter as unknown as PromCounterInternals).hashMap;
    for (const bound of this.bound.values()) {
      if (bound.pending === 0) continue;
      const entry = bound.entry;
      if (map !== undefined && entry !== undefined && bound.map === map && map[bound.hash] === entry) {
        entry.value += bound.pending;
      } else {
        // prom-client's inc returns the label hash it stored the value under (not in its types).
        const stored = this.counter.labels(...bound.values).inc(bound.pending) as unknown as { labelHash?: string } | undefined;
        const hash = stored?.labelHash;
        bound.hash = hash ?? '';
        bound.map = map;
        bound.entry = hash === undefined || map === undefined ? undefined : map[hash];
      }
      bound.pending = 0;
    }
  }
}

const handles = new WeakMap<Counter, PendingCounts>();

/** A prom-client counter in `registry` whose increments are counted as in PendingCounts. */
export function deferredCounter(definition: CounterDefinition, registry: Registry): Counter {
  const counter: Counter = new Counter({
    name: definition.name,
    help: definition.help,
    labelNames: [...definition.labelNames],
    registers: [registry],
    collect: () => handles.get(counter)?.flush(),
  });
  handles.set(counter, new PendingCounts(counter));
  return counter;
}

/** The engine's handle on a counter made by `deferredCounter`. */
export function countsOf(counter: Counter): CounterHandle {
  const handle = handles.get(counter);
  if (handle === undefined) throw new Error('the counter was not made by deferredCounter');
  return handle;
}
