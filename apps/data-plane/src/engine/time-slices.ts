import { performance } from 'node:perf_hooks';

/**
 * How long one slice of background work (a reload's parsing, compiling, serializing) may hold the
 * event loop. Requests that arrive meanwhile wait at most about this long: issue 19 wants a p99
 * under 20 ms during a full reload of 10,000 routes, on a machine that also runs the load.
 */
export const SLICE_BUDGET_MS = 4;

/** Lets the event loop run (I/O callbacks, timers) before the next slice. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Runs a generator step by step; whenever a slice has used `budgetMs`, it yields to the event
 * loop before going on. A step should be small (one route); the generator decides where a slice
 * may end, the clock decides whether it does.
 */
export async function runInSlices<R>(steps: Generator<void, R, void>, budgetMs = SLICE_BUDGET_MS): Promise<R> {
  let sliceStart = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
    if (performance.now() - sliceStart >= budgetMs) {
      await yieldToEventLoop();
      sliceStart = performance.now();
    }
  }
}

/** Runs every step at once (start-up, tests): the same work without yielding. */
export function runToEnd<R>(steps: Generator<void, R, void>): R {
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}

/**
 * Light per-route steps (a route reused, a record found unchanged) a pass runs between two yields.
 * Every step of a generator run by runInSlices allocates its iteration result: a yield per route
 * was 0.6 MB of young garbage per pass over 10,000 routes (two passes a reload, about half of what
 * a reload still allocated on the main thread; tools/bench/README.md, h-reload6), where 16 such
 * routes take a few microseconds. A step that does real work (a route compiled) still yields.
 */
export const LIGHT_STEPS_PER_YIELD = 16;

/**
 * Items a background pass over a whole table handles between two yields (a policy's retain): one
 * pass over 10,000 routes took 2 to 9 ms of CPU on a busy machine, a cache miss or more per route.
 */
export const CHUNK_ITEMS = 500;

/**
 * Calls `visit` on every item, yielding after every `chunk` of them, for runInSlices. Over a Map's
 * keys, `visit` may delete the key it is given (a Map iterator carries on past deleted entries).
 */
export function* eachInChunks<T>(items: Iterable<T>, visit: (item: T) => void, chunk = CHUNK_ITEMS): Generator<void, void, void> {
  let inChunk = 0;
  for (const item of items) {
    visit(item);
    inChunk += 1;
    if (inChunk === chunk) {
      inChunk = 0;
      yield;
    }
  }
}
