import { LATENCY_BUCKETS } from './latency-sketch';
import {
  REQUEST_OUTCOMES,
  STATUS_CLASSES,
  type LatencySketchWire,
  type ProcessGauges,
  type RouteWindow,
  type TelemetryWindow,
  type TopKeyWire,
  type TrafficCounts,
  type UpstreamWindow,
} from './telemetry-window.types';
import { ROW, ROW_NUMBERS, TELEMETRY_WIRE_VERSION, WIRE_BREAKER_STATES, WIRE_HEALTH } from './telemetry-wire.types';
import type { BreakerState, HealthIndicator } from '../resilience-status.types';

/** Bounds a window must respect: a signed but buggy or hostile sender must not make a receiver allocate without limit. */
export const TELEMETRY_WINDOW_LIMITS = {
  routes: 20_000,
  upstreams: 5_000,
  topKeys: 100,
  idLength: 512,
  /** Strings in the table: every route id, upstream name and top key of the window at most once. */
  strings: 20_000 + 5_000 + 100_000,
} as const;

/** A window that does not have the wire shape; `field` names the first offending field. */
export class TelemetryWindowError extends Error {
  constructor(
    readonly field: string,
    problem: string,
  ) {
    super(`telemetry window: ${field} ${problem}`);
    this.name = 'TelemetryWindowError';
  }
}

type Fields = Record<string, unknown>;

function object(value: unknown, field: string): Fields {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new TelemetryWindowError(field, 'must be an object');
  return value as Fields;
}

function count(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw new TelemetryWindowError(field, 'must be a non-negative integer');
  return value;
}

function amount(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new TelemetryWindowError(field, 'must be a finite non-negative number');
  return value;
}

function text(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > TELEMETRY_WINDOW_LIMITS.idLength) {
    throw new TelemetryWindowError(field, `must be a string of 1 to ${TELEMETRY_WINDOW_LIMITS.idLength} characters`);
  }
  return value;
}

function list(value: unknown, field: string, max: number): unknown[] {
  if (!Array.isArray(value)) throw new TelemetryWindowError(field, 'must be an array');
  if (value.length > max) throw new TelemetryWindowError(field, `must have at most ${max} entries`);
  return value;
}

/**
 * Latency runs back into gap pairs (`[gap, count, ...]`), checking every item: indexes stay on the
 * scale, counts are positive, a skip is followed by a count.
 */
function latency(runs: unknown, zeroValue: unknown, sumUs: unknown, field: string): LatencySketchWire {
  const items = list(runs, `${field}.buckets`, LATENCY_BUCKETS * 2);
  const buckets: number[] = [];
  let inBuckets = 0;
  if (items.length === 1) throw new TelemetryWindowError(`${field}.buckets`, 'must be empty or a first bucket index followed by counts');
  if (items.length > 0) {
    let index = count(items[0], `${field}.buckets[0]`);
    if (index === 0 || index >= LATENCY_BUCKETS) throw new TelemetryWindowError(`${field}.buckets[0]`, `must be a bucket index from 1 to ${LATENCY_BUCKETS - 1}`);
    let previous = 0;
    for (let i = 1; i < items.length; i += 1) {
      const item = items[i];
      const itemField = `${field}.buckets[${i}]`;
      if (typeof item !== 'number' || !Number.isSafeInteger(item) || item === 0) throw new TelemetryWindowError(itemField, 'must be a non-zero integer (a count, or a negative skip)');
      if (item < 0) {
        if (i === items.length - 1 || (items[i + 1] as number) < 0) throw new TelemetryWindowError(itemField, 'must be followed by a count');
        index -= item;
        continue;
      }
      if (index >= LATENCY_BUCKETS) throw new TelemetryWindowError(itemField, `must count a bucket below ${LATENCY_BUCKETS}`);
      buckets.push(index - previous, item);
      inBuckets += item;
      previous = index;
      index += 1;
    }
  }
  const zero = count(zeroValue, `${field}.zero`);
  const total = zero + inBuckets;
  if (!Number.isSafeInteger(total)) throw new TelemetryWindowError(`${field}.buckets`, 'must add up to a safe integer');
  return { count: total, sumMs: count(sumUs, `${field}.sumUs`) / 1000, zero, buckets };
}

function tuple<T extends number[]>(row: readonly unknown[], at: number, field: string, names: readonly string[]): T {
  return names.map((_, i) => count(row[at + i], `${field}[${i}]`)) as T;
}

/** Resolves an index into the window's string table. */
type StringAt = (value: unknown, field: string) => string;

function resilience(code: number, field: string): { breaker?: BreakerState; health?: HealthIndicator } {
  const breaker = code % 4;
  const health = Math.floor(code / 4);
  if (breaker > WIRE_BREAKER_STATES.length || health > WIRE_HEALTH.length) throw new TelemetryWindowError(`${field}.resilience`, 'must be a known breaker state and health code');
  return {
    ...(breaker === 0 ? {} : { breaker: WIRE_BREAKER_STATES[breaker - 1] }),
    ...(health === 0 ? {} : { health: WIRE_HEALTH[health - 1] }),
  };
}

/** A row's name, counts, latency and resilience; `extra` is how many positions may follow the latency runs. */
function row(value: unknown, field: string, stringAt: StringAt, extra: number): { name: string; traffic: TrafficCounts; state: ReturnType<typeof resilience>; items: unknown[] } {
  const items = list(value, field, ROW_NUMBERS + 1 + extra);
  if (items.length < ROW_NUMBERS + 1) throw new TelemetryWindowError(field, `must have at least ${ROW_NUMBERS + 1} entries`);
  const traffic: TrafficCounts = {
    requests: count(items[ROW.requests], `${field}.requests`),
    statusClasses: tuple(items, ROW.statusClasses, `${field}.statusClasses`, STATUS_CLASSES),
    outcomes: tuple(items, ROW.outcomes, `${field}.outcomes`, REQUEST_OUTCOMES),
    retries: count(items[ROW.retries], `${field}.retries`),
    bytesIn: count(items[ROW.bytesIn], `${field}.bytesIn`),
    bytesOut: count(items[ROW.bytesOut], `${field}.bytesOut`),
    latency: latency(items[ROW.latencyRuns], items[ROW.latencyZero], items[ROW.latencySumUs], `${field}.latency`),
  };
  return { name: stringAt(items[ROW.name], `${field}.name`), traffic, state: resilience(count(items[ROW.resilience], `${field}.resilience`), field), items };
}

function topKeys(value: unknown, field: string, stringAt: StringAt): TopKeyWire[] {
  const items = list(value, field, TELEMETRY_WINDOW_LIMITS.topKeys * 4);
  if (items.length % 4 !== 0) throw new TelemetryWindowError(field, 'must hold [key, count, rejections, error] quadruples');
  const keys: TopKeyWire[] = [];
  for (let i = 0; i < items.length; i += 4) {
    const at = `${field}[${i / 4}]`;
    keys.push({ key: stringAt(items[i], `${at}.key`), count: count(items[i + 1], `${at}.count`), rejections: count(items[i + 2], `${at}.rejections`), error: count(items[i + 3], `${at}.error`) });
  }
  return keys;
}

function routeWindow(value: unknown, field: string, stringAt: StringAt): RouteWindow {
  const { name, traffic, state, items } = row(value, field, stringAt, 1);
  const route: RouteWindow = { routeId: name, ...traffic, ...state };
  if (items.length > ROW.topKeys) route.topKeys = topKeys(items[ROW.topKeys], `${field}.topKeys`, stringAt);
  return route;
}

function upstreamWindow(value: unknown, field: string, stringAt: StringAt): UpstreamWindow {
  const { name, traffic, state } = row(value, field, stringAt, 0);
  return { upstream: name, ...traffic, ...state };
}

function gauges(value: unknown, field: string): ProcessGauges {
  const items = list(value, field, 4);
  if (items.length !== 4) throw new TelemetryWindowError(field, 'must have 4 entries (heapUsedBytes, rssBytes, eventLoopLagMs, openConnections)');
  return {
    heapUsedBytes: count(items[0], `${field}.heapUsedBytes`),
    rssBytes: count(items[1], `${field}.rssBytes`),
    eventLoopLagMs: amount(items[2], `${field}.eventLoopLagMs`),
    openConnections: count(items[3], `${field}.openConnections`),
  };
}

/**
 * Checks a window received from the bus (wire version 2, TelemetryWire) entry by entry and returns
 * it as a TelemetryWindow; throws TelemetryWindowError naming the first bad field by its meaning
 * (`routes[3].latency.buckets[4]`). Unknown fields are ignored. Never throws anything else, whatever
 * the input: a forged or buggy sender costs the receiver one counted, logged window.
 */
export function parseTelemetryWindow(value: unknown): TelemetryWindow {
  const o = object(value, 'window');
  if (o.v !== TELEMETRY_WIRE_VERSION) throw new TelemetryWindowError('v', `must be ${TELEMETRY_WIRE_VERSION}`);
  const durationMs = count(o.d, 'durationMs');
  if (durationMs === 0) throw new TelemetryWindowError('durationMs', 'must be positive');
  const start = count(o.s, 'start');
  if (start % durationMs !== 0) throw new TelemetryWindowError('start', 'must be a multiple of durationMs');
  const strings = list(o.k, 'strings', TELEMETRY_WINDOW_LIMITS.strings);
  const stringAt: StringAt = (index, field) => {
    if (typeof index !== 'number' || !Number.isSafeInteger(index) || index < 0 || index >= strings.length) {
      throw new TelemetryWindowError(field, `must be an index into the string table (0 to ${strings.length - 1})`);
    }
    return text(strings[index], `strings[${index}]`);
  };
  return {
    instanceId: text(o.i, 'instanceId'),
    start,
    durationMs,
    address: text(o.a, 'address'),
    version: text(o.n, 'version'),
    configRevision: count(o.c, 'configRevision'),
    droppedWindows: count(o.x, 'droppedWindows'),
    routes: list(o.r, 'routes', TELEMETRY_WINDOW_LIMITS.routes).map((r, i) => routeWindow(r, `routes[${i}]`, stringAt)),
    upstreams: list(o.u, 'upstreams', TELEMETRY_WINDOW_LIMITS.upstreams).map((u, i) => upstreamWindow(u, `upstreams[${i}]`, stringAt)),
    process: gauges(o.p, 'process'),
  };
}
