// Preloaded with `node --require` into a proxy (the data plane or a forwarder) when
// BENCH_LOOP_CALLBACKS names a file: what the event loop runs besides requests, counted from inside
// without touching the code under test. Every top-level callback the loop makes (a socket read, a
// timer, an immediate, a nextTick drain) is one step, named by the async resource type behind it
// (TCPWRAP, HTTPINCOMINGMESSAGE, Timeout, Immediate, TickObject...), with its duration bucketed.
// So a periodic job that holds the loop (a sweep, a monitor) shows as a type with long steps, apart
// from the requests' own. SIGUSR1 starts a window, SIGUSR2 ends it and writes one JSON object
// (LoopCensus) to the file. async_hooks slows every callback: read the counts and which type the
// long steps belong to, not the absolute durations (tools/bench/README.md, Results, h-tail-loop).
import { createHook } from 'node:async_hooks';
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';

/** Upper bounds of the duration buckets, ms; the last catches the rest. */
const BUCKETS_MS = [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 16, Number.POSITIVE_INFINITY];

interface StepsOfType {
  count: number;
  totalMs: number;
  maxMs: number;
  /** Steps per bucket of BUCKETS_MS. */
  histogram: number[];
}

export interface LoopCensus {
  /** histogram[i] counts the steps of at most boundsMs[i] (and more than the bound before); the last entry, the rest. */
  boundsMs: number[];
  windowMs: number;
  steps: Record<string, StepsOfType>;
}

function census(file: string): void {
  const typeOf = new Map<number, string>();
  let steps = new Map<string, StepsOfType>();
  let counting = false;
  let depth = 0;
  let started = 0;
  let stepType = '';
  let windowStart = 0;
  createHook({
    init: (id, type) => void typeOf.set(id, type),
    destroy: (id) => void typeOf.delete(id),
    before: (id) => {
      if (!counting || depth++ > 0) return;
      started = performance.now();
      stepType = typeOf.get(id) ?? 'unknown';
    },
    after: () => {
      if (!counting || depth === 0 || --depth > 0) return;
      const ms = performance.now() - started;
      let entry = steps.get(stepType);
      if (entry === undefined) steps.set(stepType, (entry = { count: 0, totalMs: 0, maxMs: 0, histogram: BUCKETS_MS.map(() => 0) }));
      entry.count += 1;
      entry.totalMs += ms;
      entry.maxMs = Math.max(entry.maxMs, ms);
      const bucket = BUCKETS_MS.findIndex((bound) => ms <= bound);
      entry.histogram[bucket] = (entry.histogram[bucket] ?? 0) + 1;
    },
  }).enable();
  process.on('SIGUSR1', () => {
    steps = new Map();
    depth = 0;
    counting = true;
    windowStart = performance.now();
  });
  process.on('SIGUSR2', () => {
    counting = false;
    const result: LoopCensus = { boundsMs: BUCKETS_MS.slice(0, -1), windowMs: performance.now() - windowStart, steps: Object.fromEntries(steps) };
    writeFileSync(file, JSON.stringify(result));
  });
}

const file = process.env['BENCH_LOOP_CALLBACKS'];
// Worker threads inherit `--require` and the environment; the loop measured is the main thread's.
if (isMainThread && file !== undefined && file !== '') census(file);
