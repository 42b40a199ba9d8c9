import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Gives the young generation back to the system once the process has gone idle (issue 19).
 *
 * The `gateway` command runs node with `--max-semi-space-size=32` (throughput under load, see
 * bin/gateway.js), so under traffic the new space grows to 2 x 32 MiB, and V8 never shrinks it
 * while nothing allocates: no collection runs, and the memory reducer only follows full
 * collections. V8 does shrink the new space at a scavenge when its allocation throughput is low
 * (`Heap::ReduceNewSpaceSize`: under 1 KB/ms, from the last collection on, over at least 5 s).
 * So a first minor collection runs 2 s into idleness (it shrinks when the last automatic one was
 * long enough ago, else it starts a quiet window) and a second one 6 s later, which then reads a
 * rate near zero and hands ~60 MB back. A scavenge of the idle heap costs a few ms of CPU; at most
 * two run per idle period, and only while the new space is grown.
 */
export interface IdleTrimSettings {
  /** How long the event loop must have been idle before the first trim. */
  readonly firstTrimAfterMs: number;
  /** Between one trim and the next in the same idle period: longer than V8's 5 s throughput window. */
  readonly retryAfterMs: number;
  /** How often the event loop's utilization is read. */
  readonly tickMs: number;
  /** Utilization over a tick at or above which the process counts as busy. */
  readonly busyUtilization: number;
  /** New space size (both semi-spaces) below which there is nothing worth trimming. */
  readonly grownBytes: number;
  /** Trims tried in one idle period before giving up (a process allocating > 1 KB/ms while idle keeps its new space). */
  readonly attemptsPerIdlePeriod: number;
}

export const IDLE_TRIM_DEFAULTS: IdleTrimSettings = { firstTrimAfterMs: 2000, retryAfterMs: 6000, tickMs: 1000, busyUtilization: 0.02, grownBytes: 8 * 1024 * 1024, attemptsPerIdlePeriod: 2 };

/** What one tick decides, from what it observed: pure, so the rule is tested without timers. */
export interface TrimState {
  /** When the loop was last seen busy, or the last trim ran (ms, performance.now()). */
  readonly quietSince: number;
  /** Trims run in this idle period; a busy tick resets it. */
  readonly attempts: number;
}

export function nextTrimStep(
  state: TrimState,
  observed: { now: number; utilization: number; newSpaceBytes: number },
  settings: IdleTrimSettings,
): { state: TrimState; trim: boolean } {
  if (observed.utilization >= settings.busyUtilization) return { state: { quietSince: observed.now, attempts: 0 }, trim: false };
  const wait = state.attempts === 0 ? settings.firstTrimAfterMs : settings.retryAfterMs;
  const due = observed.now - state.quietSince >= wait && state.attempts < settings.attemptsPerIdlePeriod;
  if (!due || observed.newSpaceBytes < settings.grownBytes) return { state, trim: false };
  // V8 measures throughput from the last collection on: when it ran during the traffic, the
  // bytes allocated since still read as more than 1 KB/ms at the first trim, whose scavenge
  // starts a quiet window of its own for the next one.
  return { state: { quietSince: observed.now, attempts: state.attempts + 1 }, trim: true };
}

type MinorCollector = (options: { type: 'minor' }) => void;

/**
 * V8's `gc` function without exposing it to the gateway's own context: the flag is set only while
 * a throwaway context is created, then cleared, so later contexts do not get `gc` either.
 */
function minorCollector(): MinorCollector {
  const exposed = (globalThis as { gc?: unknown }).gc;
  if (typeof exposed === 'function') return exposed as MinorCollector;
  setFlagsFromString('--expose-gc');
  try {
    return runInNewContext('gc') as MinorCollector;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}

export function newSpaceBytes(): number {
  return getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
}

/** Starts the idle check (an unref'd timer: it never keeps the process alive); call the result to stop it. */
export function startIdleYoungGenerationTrim(settings: IdleTrimSettings = IDLE_TRIM_DEFAULTS, onTrim?: (before: number, after: number) => void): () => void {
  let state: TrimState = { quietSince: performance.now(), attempts: 0 };
  let last: EventLoopUtilization = performance.eventLoopUtilization();
  let collect: MinorCollector | undefined;
  const timer = setInterval(() => {
    const current = performance.eventLoopUtilization();
    const utilization = performance.eventLoopUtilization(current, last).utilization;
    last = current;
    const before = newSpaceBytes();
    const step = nextTrimStep(state, { now: performance.now(), utilization, newSpaceBytes: before }, settings);
    state = step.state;
    if (!step.trim) return;
    collect ??= minorCollector();
    collect({ type: 'minor' });
    // The trim's own scavenge must not make the next tick look busy (it would start a new period).
    last = performance.eventLoopUtilization();
    onTrim?.(before, newSpaceBytes());
  }, settings.tickMs);
  timer.unref();
  return () => clearInterval(timer);
}
