import { effect, signal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api } from '../api/api-client';
import type { BreakerState, ClusterSecond, HealthIndicator, MonitoringSummary } from '../api/api-types';
import { followStream, type FollowStatus } from '../api/stream-follower';
import { session } from '../session/session.state';

/** Whole frames kept (routes and upstreams): the per-route table's window. */
export const RECENT_SECONDS = 60;
/** Cluster totals kept: the 15-minute chart's reach. */
const TOTALS_KEPT = 900;
/** A first connection resumes this far back, so the last minute's numbers show at once. */
const BACKFILL_SECONDS = RECENT_SECONDS;
/** The connection outlives its last page by this much, so moving between live pages reuses it. */
const CLOSE_AFTER_MS = 5_000;

export type StreamStatus = 'idle' | FollowStatus;

export interface LiveState {
  breaker: BreakerState | null;
  health: HealthIndicator | null;
}

export interface TotalPoint {
  /** The second's start, epoch ms. */
  t: number;
  requests: number;
  clientErrors: number;
  serverErrors: number;
  p50: number;
  p95: number;
  p99: number;
}

export const streamStatus = signal<StreamStatus>('idle');
/** The last RECENT_SECONDS frames, oldest first. */
export const recentSeconds = signal<readonly ClusterSecond[]>([]);
/** The cluster total of every second the stream sent in the last 15 minutes, oldest first. */
export const liveTotals = signal<readonly TotalPoint[]>([]);
/** Breaker and health per route id: one summary request seeds it, then every frame updates it. */
export const routeStates = signal<ReadonlyMap<string, LiveState>>(new Map());
/** Breaker and health per upstream, as of the latest second it had traffic. */
export const upstreamStates = signal<ReadonlyMap<string, LiveState & { lastSeen: number }>>(new Map());

let users = 0;
let connection: AbortController | undefined;
let closeTimer: ReturnType<typeof setTimeout> | undefined;
let lastEventId: string | undefined;
let seeded = false;

/**
 * Keeps the app's one monitoring stream open while the calling component is mounted. Every live
 * value (list columns, the monitoring page) reads the signals above; nothing polls per second.
 */
export function useLiveTelemetry(): void {
  useEffect(() => {
    users += 1;
    clearTimeout(closeTimer);
    if (connection === undefined) connect();
    return () => {
      users -= 1;
      if (users === 0) closeTimer = setTimeout(disconnect, CLOSE_AFTER_MS);
    };
  }, []);
}

// Nothing of a previous user's session may stay open or shown after sign-out or expiry.
effect(() => {
  if (session.value.status !== 'signed-in') reset();
});

function connect(): void {
  const controller = new AbortController();
  connection = controller;
  if (!seeded) seedRouteStates();
  void run(controller.signal).finally(() => {
    // Ended for good (session over, 403): a later page may try again.
    if (connection === controller) connection = undefined;
  });
}

function disconnect(): void {
  connection?.abort();
  connection = undefined;
  if (streamStatus.value !== 'ended') streamStatus.value = 'idle';
}

function reset(): void {
  disconnect();
  clearTimeout(closeTimer);
  lastEventId = undefined;
  seeded = false;
  streamStatus.value = 'idle';
  recentSeconds.value = [];
  liveTotals.value = [];
  routeStates.value = new Map();
  upstreamStates.value = new Map();
}

/** The one summary request: breaker and health of routes that had traffic in the last 15 minutes. */
function seedRouteStates(): void {
  seeded = true;
  api.monitoringSummary('15m').then(
    (summary: MonitoringSummary) => {
      const states = new Map<string, LiveState>(summary.routes.map((r) => [r.routeId, { breaker: r.breaker, health: r.health }]));
      // Frames that arrived meanwhile are newer than the summary.
      for (const [id, state] of routeStates.value) states.set(id, state);
      routeStates.value = states;
    },
    () => {
      seeded = false; // the next connection tries again; the stream fills the states meanwhile
    },
  );
}

function run(signal: AbortSignal): Promise<void> {
  return followStream(
    {
      open: (id, abort) => api.openMonitoringStream(id, abort),
      lastEventId: () => lastEventId,
      firstEventId: () => String(Math.floor(Date.now() / 1000) * 1000 - (BACKFILL_SECONDS + 1) * 1000),
      onStatus: (status) => (streamStatus.value = status),
      onEvent: (event) => {
        if (event.event !== 'second') return;
        const second = parseSecond(event.data);
        if (second !== undefined) receive(second);
        if (event.id !== undefined && /^\d{1,15}$/.test(event.id)) lastEventId = event.id;
      },
    },
    signal,
  );
}

function receive(second: ClusterSecond): void {
  const frames = recentSeconds.value.filter((s) => s.start !== second.start && s.start > second.start - RECENT_SECONDS * 1000);
  frames.push(second);
  frames.sort((a, b) => a.start - b.start);
  recentSeconds.value = frames;

  const point: TotalPoint = {
    t: second.start,
    requests: second.total.requests,
    clientErrors: second.total.statusClasses[2],
    serverErrors: second.total.statusClasses[3],
    p50: second.total.latency.p50,
    p95: second.total.latency.p95,
    p99: second.total.latency.p99,
  };
  const totals = liveTotals.value.filter((p) => p.t !== second.start && p.t > second.start - TOTALS_KEPT * 1000);
  totals.push(point);
  totals.sort((a, b) => a.t - b.t);
  liveTotals.value = totals;

  if (second.routes.some((r) => r.breaker !== undefined || r.health !== undefined)) {
    const states = new Map(routeStates.value);
    for (const r of second.routes) {
      const previous = states.get(r.routeId);
      states.set(r.routeId, { breaker: r.breaker ?? previous?.breaker ?? null, health: r.health ?? previous?.health ?? null });
    }
    routeStates.value = states;
  }
  if (second.upstreams.length > 0) {
    const states = new Map(upstreamStates.value);
    for (const u of second.upstreams) {
      const previous = states.get(u.upstream);
      states.set(u.upstream, { breaker: u.breaker ?? previous?.breaker ?? null, health: u.health ?? previous?.health ?? null, lastSeen: second.start });
    }
    upstreamStates.value = states;
  }
}

/** A frame that is not a usable second is skipped: no byte from the wire may break the page. */
function parseSecond(data: string): ClusterSecond | undefined {
  try {
    const value = JSON.parse(data) as Partial<ClusterSecond> | null;
    if (value === null || typeof value !== 'object' || typeof value.start !== 'number') return undefined;
    if (!Array.isArray(value.routes) || !Array.isArray(value.upstreams) || !isTraffic(value.total)) return undefined;
    if (!value.routes.every((r) => typeof r?.routeId === 'string' && isTraffic(r))) return undefined;
    if (!value.upstreams.every((u) => typeof u?.upstream === 'string' && isTraffic(u))) return undefined;
    return value as ClusterSecond;
  } catch {
    return undefined;
  }
}

function isTraffic(value: unknown): boolean {
  const t = value as ClusterSecond['total'] | undefined;
  return (
    typeof t === 'object' &&
    t !== null &&
    typeof t.requests === 'number' &&
    Array.isArray(t.statusClasses) &&
    t.statusClasses.length === 4 &&
    Array.isArray(t.outcomes) &&
    t.outcomes.length === 7 &&
    typeof t.latency === 'object' &&
    t.latency !== null
  );
}
