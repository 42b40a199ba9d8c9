import type { Detector, Signal } from './detector';
import type { DetectorEvent } from './detector-event.types';
import { isNumberArray, isRecord, pushBounded, restoreRecord, TREND_POINTS } from './detector-state';
import { durationMs, type CostSettings } from './event-settings.types';
import { poissonUpperTail, round, trendOf } from './stats';

const DAY_MS = 86_400_000;
/** The window is kept as this many buckets (a sliding window accurate to 1/24 of its length). */
const WINDOW_BUCKETS = 24;
const TOP_CLIENTS = 5;
const MAX_CLIENTS = 100;

/**
 * Per route: `buckets` = flat [start, costUsd, requests, ...] of the window; `day` / `month` =
 * [start, costUsd, requests] of the current UTC day and month; `clients` = requests per client key
 * this UTC day; `rates` = the latest window costs (trend).
 */
interface RouteCost {
  buckets: number[];
  day: number[];
  month: number[];
  clients: Record<string, number>;
  rates: number[];
}

export interface CostState {
  routes: Record<string, RouteCost>;
}

const isRouteCost = (value: unknown): value is RouteCost =>
  isRecord(value) && isNumberArray(value['buckets']) && isNumberArray(value['day']) && isNumberArray(value['month']) && isRecord(value['clients']) && isNumberArray(value['rates']);

/** The documented cost model: requests x price per request + (bytes in + out) / 1e9 x price per GB. */
export function estimateCostUsd(requests: number, bytes: number, settings: Pick<CostSettings, 'pricePerRequestUsd' | 'pricePerGbUsd'>): number {
  return requests * settings.pricePerRequestUsd + (bytes / 1e9) * settings.pricePerGbUsd;
}

/**
 * 1 - P(Poisson(λ) >= k) with k the requests observed and λ the requests that would have cost
 * exactly the limit at the observed cost per request: how unlikely the observed spend would be
 * from traffic whose expected cost is the limit.
 */
export function costConfidence(costUsd: number, requests: number, limitUsd: number): number {
  if (costUsd <= 0 || requests <= 0) return 0;
  const lambda = limitUsd / (costUsd / requests);
  return 1 - poissonUpperTail(lambda, requests);
}

function monthStart(ms: number): number {
  const date = new Date(ms);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
}

function nextMonthStart(ms: number): number {
  const date = new Date(ms);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
}

/**
 * COST_ALERT (spec 6.1): a route's estimated cost (estimateCostUsd) over `window` above `threshold`
 * with at least `minSamples` requests, its spend this UTC day above `budgets.daily`, or its spend
 * this UTC month projected at the current rate above `budgets.monthly` (one incident each:
 * `window`, `daily`, `monthly`). context: `route`, `top_clients` (`id`, `cost_usd` = the client's
 * share of the route's requests times the route's cost, `requests`, today), `time_to_monthly_limit`
 * (seconds until the monthly budget is spent at the window's rate; 0 when spent, null without a
 * budget or traffic). confidence: costConfidence.
 */
export const costAlertDetector: Detector<CostState> = {
  kind: 'COST_ALERT',
  initialState: () => ({ routes: {} }),
  restoreState(stored) {
    const routes = isRecord(stored) ? restoreRecord(stored['routes'], isRouteCost) : undefined;
    return routes === undefined ? undefined : { routes };
  },
  evaluate(tick, state, context) {
    const now = tick.start + tick.durationMs;
    const day = Math.floor(tick.start / DAY_MS) * DAY_MS;
    const month = monthStart(tick.start);
    for (const route of tick.routes) {
      const settings = context.resolver.route(route.routeId).cost;
      const bucketMs = Math.max(1000, Math.floor(durationMs(settings.window, DAY_MS) / WINDOW_BUCKETS));
      const entry = (state.routes[route.routeId] ??= { buckets: [], day: [day, 0, 0], month: [month, 0, 0], clients: {}, rates: [] });
      const cost = estimateCostUsd(route.requests, route.bytes, settings);
      const bucket = Math.floor(tick.start / bucketMs) * bucketMs;
      const last = entry.buckets.length - 3;
      if (last >= 0 && entry.buckets[last] === bucket) {
        entry.buckets[last + 1] = (entry.buckets[last + 1] as number) + cost;
        entry.buckets[last + 2] = (entry.buckets[last + 2] as number) + route.requests;
      } else entry.buckets.push(bucket, cost, route.requests);
      if (entry.day[0] !== day) {
        entry.day = [day, 0, 0];
        entry.clients = {};
      }
      if (entry.month[0] !== month) entry.month = [month, 0, 0];
      entry.day[1] = (entry.day[1] as number) + cost;
      entry.day[2] = (entry.day[2] as number) + route.requests;
      entry.month[1] = (entry.month[1] as number) + cost;
      entry.month[2] = (entry.month[2] as number) + route.requests;
      for (const client of route.clients) entry.clients[client.id] = (entry.clients[client.id] ?? 0) + client.requests;
      trimClients(entry);
    }

    const signals: Signal[] = [];
    for (const [routeId, entry] of Object.entries(state.routes)) {
      const settings = context.resolver.route(routeId).cost;
      const windowMs = durationMs(settings.window, DAY_MS);
      let drop = 0;
      while (drop < entry.buckets.length && (entry.buckets[drop] as number) <= now - windowMs - Math.floor(windowMs / WINDOW_BUCKETS)) drop += 3;
      if (drop > 0) entry.buckets.splice(0, drop);
      if (entry.buckets.length === 0 && (entry.month[0] as number) !== month) {
        delete state.routes[routeId];
        continue;
      }
      let cost = 0;
      let requests = 0;
      for (let i = 0; i < entry.buckets.length; i += 3) {
        cost += entry.buckets[i + 1] as number;
        requests += entry.buckets[i + 2] as number;
      }
      pushBounded(entry.rates, cost, TREND_POINTS);
      const ratePerMs = cost / windowMs;
      const monthly = settings.budgets.monthly;
      const spentMonth = entry.month[1] as number;
      const timeToMonthlyLimit = monthly === null ? null : spentMonth >= monthly ? 0 : ratePerMs > 0 ? Math.round((monthly - spentMonth) / ratePerMs / 1000) : null;
      const base = { routeId, entry, settings, timeToMonthlyLimit, trend: trendOf(entry.rates) };

      signals.push(judge(base, 'window', cost, requests, settings.threshold, requests >= settings.minSamples, `over ${settings.window}`));
      if (settings.budgets.daily !== null) {
        signals.push(judge(base, 'daily', entry.day[1] as number, entry.day[2] as number, settings.budgets.daily, (entry.day[2] as number) >= settings.minSamples, 'today (UTC)'));
      }
      if (monthly !== null) {
        const projected = spentMonth + ratePerMs * Math.max(0, nextMonthStart(tick.start) - now);
        signals.push(judge(base, 'monthly', projected, entry.month[2] as number, monthly, (entry.month[2] as number) >= settings.minSamples, 'projected for this month (UTC)'));
      }
    }
    return signals;
  },
};

interface JudgeBase {
  routeId: string;
  entry: RouteCost;
  settings: CostSettings;
  timeToMonthlyLimit: number | null;
  trend: DetectorEvent['data']['trend'];
}

function judge(base: JudgeBase, budget: 'window' | 'daily' | 'monthly', cost: number, requests: number, limit: number, enoughSamples: boolean, span: string): Signal {
  const ratio = limit > 0 ? cost / limit : 0;
  const signal: Signal = { fingerprint: `COST_ALERT:route:${base.routeId}:${budget}`, routeId: base.routeId, ratio };
  if (!enoughSamples || cost <= limit) return signal;
  const costPerRequest = base.entry.day[2] !== 0 ? (base.entry.day[1] as number) / (base.entry.day[2] as number) : 0;
  const topClients = Object.entries(base.entry.clients)
    .sort((a, b) => b[1] - a[1])
    .slice(0, TOP_CLIENTS)
    .map(([id, clientRequests]) => ({ id, cost_usd: round(clientRequests * costPerRequest, 4), requests: clientRequests }));
  signal.event = {
    type: 'COST_ALERT',
    severity: ratio >= 2 ? 'CRITICAL' : 'WARNING',
    summary: `Route ${base.routeId}: estimated cost ${round(cost, 2)} USD ${span}, limit ${limit} USD`,
    confidence: round(costConfidence(cost, requests, limit)),
    data: { current_value: round(cost, 4), threshold: limit, breach_ratio: round(ratio, 3), trend: base.trend },
    context: { route: base.routeId, budget, window: base.settings.window, requests, top_clients: topClients, time_to_monthly_limit: base.timeToMonthlyLimit },
  };
  return signal;
}

/** Keeps the heaviest clients only (the telemetry lists at most 10 a second per route). */
function trimClients(entry: RouteCost): void {
  const keys = Object.keys(entry.clients);
  if (keys.length <= MAX_CLIENTS) return;
  entry.clients = Object.fromEntries(Object.entries(entry.clients).sort((a, b) => b[1] - a[1]).slice(0, MAX_CLIENTS));
}
