/*
 * Generated traffic scenarios for the detectors (the replay tool in tools/bench and the detectors'
 * specs): evaluation ticks of a few routes over days, with incidents injected at known moments and
 * the moment each one's metric first passes its detector's documented trigger level. Seeded: the
 * same ticks on every run, so the numbers in docs/events.md can be reproduced.
 * Imported as `@gateway/events/traffic-scenarios` (not part of the library's main entry).
 */
import { seededRandom, standardNormal } from '../telemetry/seeded-random';
import type { DetectorKind } from './detector-event.types';
import { defaultEventSettings, type EventSettings } from './event-settings.types';
import type { ProcessTick, RouteTick, TrafficTick, UpstreamTick } from './traffic-tick';

export const SCENARIO_TICK_MS = 10_000;
const DAY_MS = 86_400_000;
const TICKS_PER_DAY = DAY_MS / SCENARIO_TICK_MS;
/** 2026-11-02T00:00:00Z: scenarios start at midnight UTC. */
const EPOCH = Date.UTC(2026, 10, 2);
export const SCENARIO_MEMORY_LIMIT_BYTES = 2 * 1024 ** 3;

export interface ScenarioIncident {
  kind: DetectorKind;
  fingerprint: string;
  /** End of the first evaluation in which the injected metric is past the detector's trigger level. */
  triggerAt: number;
  /** When the injected fault stops. */
  endAt: number;
}

export interface TrafficScenario {
  name: string;
  description: string;
  days: number;
  tickMs: number;
  settings: EventSettings;
  ticks: TrafficTick[];
  incidents: ScenarioIncident[];
}

/** What a route does in one tick. */
interface RouteLoad {
  rps: number;
  errorRate: number;
  p95: number;
  breaker?: RouteTick['breaker'];
  clients?: Array<{ id: string; rps: number }>;
  bytesPerRequest?: number;
}

class Generator {
  readonly random: () => number;
  constructor(seed: number) {
    this.random = seededRandom(seed);
  }

  poisson(lambda: number): number {
    if (lambda <= 0) return 0;
    if (lambda > 50) return Math.max(0, Math.round(lambda + Math.sqrt(lambda) * standardNormal(this.random)));
    const limit = Math.exp(-lambda);
    let k = 0;
    let p = this.random();
    while (p > limit) {
      k++;
      p *= this.random();
    }
    return k;
  }

  binomial(n: number, p: number): number {
    if (n > 200) return Math.min(n, Math.max(0, Math.round(n * p + Math.sqrt(n * p * (1 - p)) * standardNormal(this.random))));
    let k = 0;
    for (let i = 0; i < n; i++) if (this.random() < p) k++;
    return k;
  }

  route(routeId: string, load: RouteLoad): RouteTick {
    const clients = (load.clients ?? []).map((client) => ({ id: client.id, requests: this.poisson((client.rps * SCENARIO_TICK_MS) / 1000) }));
    const fromClients = clients.reduce((sum, client) => sum + client.requests, 0);
    const requests = load.clients === undefined ? this.poisson((load.rps * SCENARIO_TICK_MS) / 1000) : fromClients;
    // The quantile of a few requests is noisy: the spread shrinks with the sample.
    const spread = 0.05 + 0.4 / Math.sqrt(Math.max(1, requests));
    const p95 = requests === 0 ? 0 : load.p95 * Math.exp(spread * standardNormal(this.random));
    return {
      routeId,
      requests,
      errors: this.binomial(requests, load.errorRate),
      p95,
      p99: p95 * 1.6,
      bytes: requests * (load.bytesPerRequest ?? 2_000),
      ...(load.breaker === undefined ? {} : { breaker: load.breaker }),
      clients: clients.filter((client) => client.requests > 0).sort((a, b) => b.requests - a.requests),
    };
  }
}

function processes(rssBytes = 300 * 1024 ** 2): ProcessTick[] {
  return [{ instanceId: 'dp-1', role: 'data-plane', rssBytes, eventLoopLagMs: 12, openConnections: 40 }];
}

function upstreamOf(route: RouteTick, upstream: string): UpstreamTick {
  return { upstream, requests: route.requests, failures: route.errors, ...(route.breaker === undefined ? {} : { breaker: route.breaker }) };
}

/** Daily rhythm: 1 at the day's peak (14:00 UTC), `low` at its trough. */
function daily(at: number, low: number): number {
  const hour = ((at % DAY_MS) / 3_600_000 + 24) % 24;
  return low + (1 - low) * (0.5 + 0.5 * Math.cos(((hour - 14) / 24) * 2 * Math.PI));
}

/** Background routes every scenario carries: steady traffic with its own noise. */
function background(gen: Generator, at: number): RouteTick[] {
  return [gen.route('catalog', { rps: 20 * daily(at, 0.3), errorRate: 0.005, p95: 60 }), gen.route('search', { rps: 5, errorRate: 0.01, p95: 180 })];
}

function build(name: string, description: string, days: number, seed: number, step: (gen: Generator, at: number, index: number) => { routes: RouteTick[]; upstreams?: UpstreamTick[]; processes?: ProcessTick[] }): Pick<TrafficScenario, 'ticks'> & { name: string; description: string; days: number } {
  const gen = new Generator(seed);
  const ticks: TrafficTick[] = [];
  for (let index = 0; index < days * TICKS_PER_DAY; index++) {
    const start = EPOCH + index * SCENARIO_TICK_MS;
    const produced = step(gen, start, index);
    const routes = [...background(gen, start), ...produced.routes];
    ticks.push({ start, durationMs: SCENARIO_TICK_MS, routes, upstreams: produced.upstreams ?? routes.map((route) => upstreamOf(route, `http://${route.routeId}.internal`)), processes: produced.processes ?? processes() });
  }
  return { name, description, days, ticks };
}

/** End of the first tick from `from` on where `passes(tick)`; Infinity when none. */
function firstPass(ticks: readonly TrafficTick[], from: number, passes: (tick: TrafficTick, index: number) => boolean): number {
  for (let index = 0; index < ticks.length; index++) {
    const tick = ticks[index] as TrafficTick;
    if (tick.start >= from && passes(tick, index)) return tick.start + tick.durationMs;
  }
  return Number.POSITIVE_INFINITY;
}

function routeIn(tick: TrafficTick, routeId: string): RouteTick | undefined {
  return tick.routes.find((route) => route.routeId === routeId);
}

/** A sudden error spike: 1 % errors, then 25 % for 15 minutes on day 2. */
export function suddenErrorSpike(): TrafficScenario {
  const settings = defaultEventSettings();
  const faultFrom = EPOCH + DAY_MS + 10 * 3_600_000;
  const faultTo = faultFrom + 15 * 60_000;
  const base = build('sudden-error-spike', 'orders: 10 req/s at 1 % errors; day 2 10:00 UTC 25 % errors for 15 min', 2, 11, (gen, at) => ({
    routes: [gen.route('orders', { rps: 10, errorRate: at >= faultFrom && at < faultTo ? 0.25 : 0.01, p95: 90 })],
  }));
  const triggerAt = windowedErrorTrigger(base.ticks, 'orders', faultFrom, settings);
  return { ...base, tickMs: SCENARIO_TICK_MS, settings, incidents: [{ kind: 'ERROR_RATE_SPIKE', fingerprint: 'ERROR_RATE_SPIKE:route:orders', triggerAt, endAt: faultTo }] };
}

/** A slow latency drift: p95 100 ms, from day 2 00:00 UTC rising linearly to 300 ms over 6 hours. */
export function slowLatencyDrift(): TrafficScenario {
  const settings = defaultEventSettings();
  const driftFrom = EPOCH + DAY_MS;
  const driftMs = 6 * 3_600_000;
  const underlying = (at: number): number => (at < driftFrom ? 100 : 100 + 200 * Math.min(1, (at - driftFrom) / driftMs));
  const base = build('slow-latency-drift', 'payments: 8 req/s, p95 100 ms; from day 2 00:00 UTC rising to 300 ms over 6 h', 2, 12, (gen, at) => ({
    routes: [gen.route('payments', { rps: 8, errorRate: 0.005, p95: underlying(at) })],
  }));
  // The documented trigger level of a drift: p95 at twice its baseline.
  const triggerAt = firstPass(base.ticks, driftFrom, (tick) => underlying(tick.start) >= 200);
  return { ...base, tickMs: SCENARIO_TICK_MS, settings, incidents: [{ kind: 'LATENCY_ANOMALY', fingerprint: 'LATENCY_ANOMALY:route:payments', triggerAt, endAt: EPOCH + 2 * DAY_MS }] };
}

/** A daily pattern and nothing else: traffic x10 and p95 x2 from night to afternoon, 3 days. */
export function dailyPattern(): TrafficScenario {
  const base = build('daily-pattern', 'profiles: 2-20 req/s and p95 80-160 ms following the time of day, 3 days, no incident', 3, 13, (gen, at) => ({
    routes: [gen.route('profiles', { rps: 20 * daily(at, 0.1), errorRate: 0.02, p95: 160 * daily(at, 0.5) })],
  }));
  return { ...base, tickMs: SCENARIO_TICK_MS, settings: defaultEventSettings(), incidents: [] };
}

/** Noisy low volume: a request every 20 s on average, 5 % errors, heavy-tailed latency, 3 days. */
export function noisyLowVolume(): TrafficScenario {
  const base = build('noisy-low-volume', 'admin-export: 0.05 req/s, 5 % errors, p95 400 ms with a wide spread, 3 days, no incident', 3, 14, (gen) => ({
    routes: [gen.route('admin-export', { rps: 0.05, errorRate: 0.05, p95: 400 * Math.exp(0.3 * standardNormal(gen.random)) })],
  }));
  return { ...base, tickMs: SCENARIO_TICK_MS, settings: defaultEventSettings(), incidents: [] };
}

/**
 * A breaker flapping: on day 2 its upstream fails 90 % of requests for 30 minutes while the
 * route's breaker opens for 30 s, lets traffic through for 10 s, opens again. The breaker's own
 * event says it all: no detector event on the route is expected (inhibition).
 */
export function breakerFlapping(): TrafficScenario {
  const faultFrom = EPOCH + DAY_MS + 15 * 3_600_000;
  const faultTo = faultFrom + 30 * 60_000;
  const base = build('breaker-flapping', 'inventory: 15 req/s; day 2 15:00 UTC upstream 90 % failures for 30 min, breaker OPEN 30 s / CLOSED 10 s', 2, 15, (gen, at) => {
    const faulty = at >= faultFrom && at < faultTo;
    const phase = Math.floor((at - faultFrom) / SCENARIO_TICK_MS) % 4;
    const breaker = faulty ? (phase < 3 ? 'OPEN' : 'CLOSED') : 'CLOSED';
    // While OPEN the gateway answers 503 itself: still 5xx for the route.
    const route = gen.route('inventory', { rps: 15, errorRate: faulty ? (breaker === 'OPEN' ? 1 : 0.9) : 0.01, p95: faulty && breaker === 'OPEN' ? 2 : 70, breaker });
    return { routes: [route] };
  });
  return { ...base, tickMs: SCENARIO_TICK_MS, settings: defaultEventSettings(), incidents: [] };
}

/** A cost surge by one client: reports at 1 req/s from three clients, then one client at 6 req/s for 8 hours on day 2. */
export function costSurgeOneClient(): TrafficScenario {
  const settings = defaultEventSettings();
  const surgeFrom = EPOCH + DAY_MS + 8 * 3_600_000;
  const surgeTo = surgeFrom + 8 * 3_600_000;
  const clientsAt = (at: number): Array<{ id: string; rps: number }> => [
    { id: 'key:alpha', rps: 0.4 },
    { id: 'key:bravo', rps: 0.3 },
    { id: 'key:charlie', rps: at >= surgeFrom && at < surgeTo ? 6 : 0.3 },
  ];
  const base = build('cost-surge-one-client', 'reports: 1 req/s from 3 clients (1 MB answers: 7.9 USD a day at the default prices); day 2 08:00 UTC key:charlie at 6 req/s for 8 h; threshold 15 USD / 1d', 3, 16, (gen, at) => ({
    routes: [gen.route('reports', { rps: 0, errorRate: 0.002, p95: 120, clients: clientsAt(at), bytesPerRequest: 1_000_000 })],
  }));
  const cost = (route: RouteTick | undefined): number => (route === undefined ? 0 : route.requests * settings.cost.pricePerRequestUsd + (route.bytes / 1e9) * settings.cost.pricePerGbUsd);
  const windowTicks = DAY_MS / SCENARIO_TICK_MS;
  let sliding = 0;
  const costs = base.ticks.map((tick) => cost(routeIn(tick, 'reports')));
  let triggerAt = Number.POSITIVE_INFINITY;
  for (let index = 0; index < costs.length; index++) {
    sliding += costs[index] as number;
    if (index >= windowTicks) sliding -= costs[index - windowTicks] as number;
    const tick = base.ticks[index] as TrafficTick;
    if (tick.start >= surgeFrom && sliding > settings.cost.threshold) {
      triggerAt = tick.start + tick.durationMs;
      break;
    }
  }
  return { ...base, tickMs: SCENARIO_TICK_MS, settings, incidents: [{ kind: 'COST_ALERT', fingerprint: 'COST_ALERT:route:reports:window', triggerAt, endAt: surgeTo + DAY_MS }] };
}

/** A memory leak on a data plane: RSS 300 MB, from day 2 06:00 UTC growing 200 MB an hour. */
export function memoryLeak(): TrafficScenario {
  const leakFrom = EPOCH + DAY_MS + 6 * 3_600_000;
  const rss = (at: number): number => 300 * 1024 ** 2 + Math.max(0, at - leakFrom) * ((200 * 1024 ** 2) / 3_600_000);
  const base = build('memory-leak', 'dp-1: RSS 300 MB; day 2 06:00 UTC growing 200 MB/h against a 2 GiB limit', 2, 17, (gen, at) => ({
    routes: [gen.route('orders', { rps: 5, errorRate: 0.01, p95: 90 })],
    processes: processes(rss(at) * (1 + 0.01 * standardNormal(gen.random))),
  }));
  const settings = defaultEventSettings();
  settings.capacity.memoryLimitBytes = SCENARIO_MEMORY_LIMIT_BYTES;
  const triggerAt = firstPass(base.ticks, leakFrom, (tick) => rss(tick.start) >= 0.85 * SCENARIO_MEMORY_LIMIT_BYTES);
  return { ...base, tickMs: SCENARIO_TICK_MS, settings, incidents: [{ kind: 'CAPACITY_WARNING', fingerprint: 'CAPACITY_WARNING:data-plane:dp-1:MEMORY', triggerAt, endAt: EPOCH + 2 * DAY_MS }] };
}

/** An upstream failing hard with no breaker: 95 % failures for 10 minutes on day 2. */
export function unprotectedUpstreamFailure(): TrafficScenario {
  const faultFrom = EPOCH + DAY_MS + 12 * 3_600_000;
  const faultTo = faultFrom + 10 * 60_000;
  const base = build('unprotected-upstream-failure', 'billing: 10 req/s, no breaker; day 2 12:00 UTC its upstream fails 95 % for 10 min', 2, 18, (gen, at) => ({
    routes: [gen.route('billing', { rps: 10, errorRate: at >= faultFrom && at < faultTo ? 0.95 : 0.01, p95: 50 })],
  }));
  const settings = defaultEventSettings();
  const triggerAt = firstPass(base.ticks, faultFrom, (tick) => {
    const route = routeIn(tick, 'billing');
    return route !== undefined && route.requests >= settings.breakerCandidate.minRequests && (100 * route.errors) / route.requests >= settings.breakerCandidate.failurePercent;
  });
  return {
    ...base,
    tickMs: SCENARIO_TICK_MS,
    settings,
    incidents: [
      { kind: 'CIRCUIT_BREAKER_CANDIDATE', fingerprint: 'CIRCUIT_BREAKER_CANDIDATE:upstream:http://billing.internal', triggerAt, endAt: faultTo },
      // The same fault is an error spike on the route (its window passes 10 % a little later).
      { kind: 'ERROR_RATE_SPIKE', fingerprint: 'ERROR_RATE_SPIKE:route:billing', triggerAt: windowedErrorTrigger(base.ticks, 'billing', faultFrom, settings), endAt: faultTo },
    ],
  };
}

function windowedErrorTrigger(ticks: readonly TrafficTick[], routeId: string, from: number, settings: EventSettings): number {
  const windowTicks = 300_000 / SCENARIO_TICK_MS;
  return firstPass(ticks, from, (_tick, index) => {
    let n = 0;
    let k = 0;
    for (let i = Math.max(0, index - windowTicks + 1); i <= index; i++) {
      const route = routeIn(ticks[i] as TrafficTick, routeId);
      n += route?.requests ?? 0;
      k += route?.errors ?? 0;
    }
    return n > 0 && (100 * k) / n > settings.errorRate.threshold;
  });
}

/** Every scenario, by name. */
export const SCENARIOS: ReadonlyArray<() => TrafficScenario> = [suddenErrorSpike, slowLatencyDrift, dailyPattern, noisyLowVolume, breakerFlapping, costSurgeOneClient, memoryLeak, unprotectedUpstreamFailure];
