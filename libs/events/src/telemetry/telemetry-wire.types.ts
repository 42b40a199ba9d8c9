/*
 * The telemetry window as it travels on the bus (wire version 2, docs/telemetry.md "On the wire").
 * A data plane with 1,000 busy routes sends one such message a second, so it is built for size:
 * short keys, every string once (a table the rows point into), one flat row of numbers per route
 * or upstream, latency buckets as runs. `encodeTelemetryWindow` writes it, `parseTelemetryWindow`
 * checks and reads it back into a TelemetryWindow.
 */
import type { BreakerState, HealthIndicator } from '../resilience-status.types';

/** Bumped when the wire shape changes; a receiver drops windows of another version (counted as invalid). */
export const TELEMETRY_WIRE_VERSION = 2;

/**
 * Positions in a route or upstream row. Counts follow STATUS_CLASSES and REQUEST_OUTCOMES; the
 * latency count is not sent (it is `zero` plus the bucket counts).
 */
export const ROW = {
  /** Index of the route id or upstream name in the string table. */
  name: 0,
  requests: 1,
  statusClasses: 2,
  outcomes: 6,
  retries: 13,
  bytesIn: 14,
  bytesOut: 15,
  /** Sum of the latencies in microseconds (integer). */
  latencySumUs: 16,
  latencyZero: 17,
  /** Breaker and health: 0 none, else (breaker index + 1) + 4 · (health index + 1), indexes in WIRE_BREAKER_STATES / WIRE_HEALTH. */
  resilience: 18,
  /** The latency runs (see LatencyRuns). */
  latencyRuns: 19,
  /** Routes with a rate limit only: `[key, count, rejections, error, ...]`, key an index in the string table. */
  topKeys: 20,
} as const;

/** Numbers of a row before the latency runs. */
export const ROW_NUMBERS = ROW.latencyRuns;

/**
 * A sketch's non-zero buckets as runs: `[first bucket index, item, item, ...]` where a positive item
 * is the count of the current bucket (then the next bucket is current) and a negative item skips
 * that many empty buckets. Neighbouring buckets cost only their counts; an empty sketch is `[]`.
 */
export type LatencyRuns = number[];

/** One route's or upstream's row: ROW_NUMBERS numbers, the latency runs and (routes) the top keys. */
export type WireRow = Array<number | number[]>;

export interface TelemetryWire {
  v: typeof TELEMETRY_WIRE_VERSION;
  /** Instance id, address, version of the sending data plane. */
  i: string;
  a: string;
  n: string;
  /** Config revision. */
  c: number;
  /** Window start (epoch ms) and duration (ms). */
  s: number;
  d: number;
  /** Windows dropped by the sender since it started. */
  x: number;
  /** Process gauges: heap used bytes, RSS bytes, event-loop lag ms, open connections. */
  p: [number, number, number, number];
  /** Every string of the rows (route ids, upstream names, top keys), once. */
  k: string[];
  /** Route rows, then upstream rows. */
  r: WireRow[];
  u: WireRow[];
}

/** Breaker states and health indicators in the order of the row's `resilience` code. */
export const WIRE_BREAKER_STATES: readonly BreakerState[] = ['CLOSED', 'OPEN', 'HALF_OPEN'];
export const WIRE_HEALTH: readonly HealthIndicator[] = ['Healthy', 'Degraded', 'Unhealthy', 'Unknown'];
