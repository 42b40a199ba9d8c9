import { Counter, type Registry } from './prom-client-classes';
import type { BoundCounter, CounterDefinition, CounterHandle } from '../engine/ports';

/** One label set's increments since the last scrape. */
class PendingCount implements BoundCounter {
  pending = 0;

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

  flush(): void {
    for (const bound of this.bound.values()) {
      if (bound.pending === 0) continue;
      this.counter.labels(...bound.values).inc(bound.pending);
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
