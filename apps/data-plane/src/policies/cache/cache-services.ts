import type { CounterDefinition } from '../../engine/ports';
import { serviceKey } from '../../engine/service-registry';
import type { ResponseCache } from './response-cache';

/** Response cache, keyed by route id (survives reloads; purged per route). */
export const RESPONSE_CACHE = serviceKey<ResponseCache>('cache.responses');

export const CACHE_LOOKUPS: CounterDefinition = {
  name: 'gateway_cache_lookups_total',
  help: 'Response cache decisions, by route id and result (HIT, MISS, BYPASS, STALE, REVALIDATED)',
  labelNames: ['route', 'result'],
};
