/*
 * The detectors' thresholds and prices: the `events` section of /api/settings (validated by the
 * control plane's EventsSettings class, docs/events.md). Global defaults, with per-route overrides
 * of the route-level detectors. Durations are strings like `30s`, `5m`, `1d`.
 */

export interface ErrorRateSettings {
  /** Percent of requests answered 5xx. */
  threshold: number;
  window: string;
  minSamples: number;
  /** Fires only when its confidence reaches this (noisy low volume stays quiet). */
  minConfidence: number;
}

export interface LatencySettings {
  quantile: 'p95' | 'p99';
  /** Robust z-score (median, 1.4826 x MAD) the quantile must reach. */
  zThreshold: number;
  /** ...and at least this multiple of the baseline median... */
  minRatio: number;
  /** ...and at least this many ms above it. */
  minDeltaMs: number;
  /** Requests an evaluation needs to count (for the baseline or a breach). */
  minSamples: number;
  /** Consecutive breaching evaluations before it fires. */
  persistence: number;
}

export interface CostSettings {
  /** USD in `window` above which a route alerts. */
  threshold: number;
  window: string;
  minSamples: number;
  groupBy: 'route';
  pricePerRequestUsd: number;
  /** Per GB (1e9 bytes) in plus out. */
  pricePerGbUsd: number;
  budgets: { daily: number | null; monthly: number | null };
}

export interface BreakerCandidateSettings {
  /** Percent of an upstream's requests failing (5xx, upstream error, timeout). */
  failurePercent: number;
  /** Requests in one evaluation. */
  minRequests: number;
}

export interface CapacitySettings {
  memoryPercent: number;
  /** The memory limit a process is judged against; null: this host's cgroup limit or total memory. */
  memoryLimitBytes: number | null;
  eventLoopLagMs: number;
  maxConnections: number;
  connectionsPercent: number;
  /** Consecutive evaluations above a level before it fires. */
  persistence: number;
}

export interface RecoverySettings {
  /** Consecutive evaluations without a breach that close an incident with RECOVERY_SIGNAL. */
  quietWindows: number;
}

export interface RouteEventOverrides {
  routeId: string;
  errorRate?: Partial<ErrorRateSettings>;
  latency?: Partial<LatencySettings>;
  cost?: Partial<Omit<CostSettings, 'budgets'>> & { budgets?: Partial<CostSettings['budgets']> };
  breakerCandidate?: Partial<BreakerCandidateSettings>;
}

export interface EventSettings {
  /** Detectors run on the holder of the lease only; false stops them (events from the bus still flow). */
  enabled: boolean;
  /** How often the detectors evaluate (one "window" of the replay goal). */
  evaluationInterval: string;
  /** circuit_breaker.opened from several data planes within this long is one event. */
  breakerGroupWindow: string;
  /** A route's error and latency events stay muted this long after its breaker was last seen OPEN (Alertmanager's keep_firing_for). */
  breakerMuteHold: string;
  errorRate: ErrorRateSettings;
  latency: LatencySettings;
  cost: CostSettings;
  breakerCandidate: BreakerCandidateSettings;
  capacity: CapacitySettings;
  recovery: RecoverySettings;
  routes: RouteEventOverrides[];
}

export function defaultEventSettings(): EventSettings {
  return {
    enabled: true,
    evaluationInterval: '10s',
    breakerGroupWindow: '30s',
    breakerMuteHold: '5m',
    errorRate: { threshold: 10, window: '5m', minSamples: 5, minConfidence: 0.99 },
    latency: { quantile: 'p95', zThreshold: 3.5, minRatio: 2, minDeltaMs: 50, minSamples: 5, persistence: 2 },
    cost: { threshold: 15, window: '1d', minSamples: 10, groupBy: 'route', pricePerRequestUsd: 0.000001, pricePerGbUsd: 0.09, budgets: { daily: null, monthly: null } },
    breakerCandidate: { failurePercent: 85, minRequests: 50 },
    capacity: { memoryPercent: 85, memoryLimitBytes: null, eventLoopLagMs: 200, maxConnections: 10_000, connectionsPercent: 80, persistence: 2 },
    recovery: { quietWindows: 5 },
    routes: [],
  };
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `30s`, `5m`, `1d` -> ms; undefined when not a duration. */
export function parseEventDuration(text: string): number | undefined {
  const match = /^(\d{1,9})(ms|s|m|h|d)$/.exec(text);
  if (match === null) return undefined;
  const ms = Number(match[1]) * (UNIT_MS[match[2] as string] as number);
  return ms > 0 ? ms : undefined;
}

/** A duration already validated by the settings owner; a broken one falls back to `fallbackMs`. */
export function durationMs(text: string, fallbackMs: number): number {
  return parseEventDuration(text) ?? fallbackMs;
}

/** The route-level settings of one route: the global values with the route's overrides on top. */
export interface RouteEventSettings {
  errorRate: ErrorRateSettings;
  latency: LatencySettings;
  cost: CostSettings;
  breakerCandidate: BreakerCandidateSettings;
}

/** Resolves per-route settings once per settings version (not per route per evaluation). */
export class EventSettingsResolver {
  private readonly byRoute = new Map<string, RouteEventSettings>();
  readonly global: RouteEventSettings;

  constructor(readonly settings: EventSettings) {
    this.global = { errorRate: settings.errorRate, latency: settings.latency, cost: settings.cost, breakerCandidate: settings.breakerCandidate };
    for (const override of settings.routes) {
      this.byRoute.set(override.routeId, {
        errorRate: { ...settings.errorRate, ...override.errorRate },
        latency: { ...settings.latency, ...override.latency },
        cost: { ...settings.cost, ...override.cost, budgets: { ...settings.cost.budgets, ...override.cost?.budgets } },
        breakerCandidate: { ...settings.breakerCandidate, ...override.breakerCandidate },
      });
    }
  }

  route(routeId: string): RouteEventSettings {
    return this.byRoute.get(routeId) ?? this.global;
  }
}
