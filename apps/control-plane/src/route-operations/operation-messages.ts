import type {
  BreakerKind,
  BreakerState,
  CommandReply,
  CommandResult,
  DataPlanePresence,
  HealthCheckStatus,
  HealthIndicator,
  KeyUsage,
  RateLimitUsage,
  ResultOf,
  ResultSubject,
  RouteBreakerView,
} from '@gateway/events';
import { LOGS_MAX_LIMIT, readLogLine, type LogLine } from '@gateway/logging';

/*
 * Readers of what data planes publish (presence, command replies). The bus is untrusted input: a
 * message that does not have the contract's shape (libs/events) is refused, never half-used.
 */

const MAX_TEXT = 512;
const MAX_KEYS = 1000;
const BREAKER_STATES: readonly BreakerState[] = ['CLOSED', 'OPEN', 'HALF_OPEN'];
const BREAKER_KINDS: readonly BreakerKind[] = ['route', 'upstream'];
const INDICATORS: readonly HealthIndicator[] = ['Healthy', 'Degraded', 'Unhealthy', 'Unknown'];

type Fields = Record<string, unknown>;

function record(value: unknown): Fields | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Fields) : undefined;
}

function text(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_TEXT;
}

function count(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

function timestamp(value: unknown): value is string {
  return text(value) && !Number.isNaN(Date.parse(value));
}

function nullable<T>(value: unknown, read: (v: unknown) => T | undefined): T | null | undefined {
  return value === null ? null : read(value);
}

export function readPresence(raw: unknown): DataPlanePresence | undefined {
  const m = record(raw);
  if (m === undefined || !text(m['instanceId']) || !timestamp(m['startedAt']) || !timestamp(m['at'])) return undefined;
  const configVersion = m['configVersion'];
  if (configVersion !== null && !count(configVersion)) return undefined;
  const presence: DataPlanePresence = { instanceId: m['instanceId'], configVersion, startedAt: m['startedAt'], at: m['at'] };
  if (text(m['host'])) presence.host = m['host'];
  if (Number.isSafeInteger(m['port'])) presence.port = m['port'] as number;
  return presence;
}

function readBreaker(value: unknown): RouteBreakerView | undefined {
  const b = record(value);
  if (b === undefined || !text(b['name']) || !BREAKER_KINDS.includes(b['kind'] as BreakerKind) || !BREAKER_STATES.includes(b['state'] as BreakerState)) return undefined;
  if (!count(b['failures']) || !count(b['successes'])) return undefined;
  const lastFailureTime = nullable(b['lastFailureTime'], (v) => (timestamp(v) ? v : undefined));
  if (lastFailureTime === undefined) return undefined;
  return { name: b['name'], kind: b['kind'] as BreakerKind, state: b['state'] as BreakerState, failures: b['failures'], successes: b['successes'], lastFailureTime };
}

function readCheck(value: unknown): HealthCheckStatus | undefined {
  const c = record(value);
  if (c === undefined || !INDICATORS.includes(c['status'] as HealthIndicator) || typeof c['url'] !== 'string') return undefined;
  if (!count(c['consecutiveSuccesses']) || !count(c['consecutiveFailures'])) return undefined;
  const lastCheck = nullable(c['lastCheck'], (v) => (timestamp(v) ? v : undefined));
  const latencyMs = nullable(c['latencyMs'], (v) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined));
  const lastError = nullable(c['lastError'], (v) => (typeof v === 'string' ? v.slice(0, MAX_TEXT) : undefined));
  if (lastCheck === undefined || latencyMs === undefined || lastError === undefined) return undefined;
  return {
    status: c['status'] as HealthIndicator,
    url: c['url'],
    lastCheck,
    consecutiveSuccesses: c['consecutiveSuccesses'],
    consecutiveFailures: c['consecutiveFailures'],
    latencyMs,
    lastError,
  };
}

function readKeyUsage(value: unknown): KeyUsage | undefined {
  const k = record(value);
  return k !== undefined && text(k['key']) && count(k['hits']) && count(k['rejections']) ? { key: k['key'], hits: k['hits'], rejections: k['rejections'] } : undefined;
}

function readUsage(value: unknown): RateLimitUsage | undefined {
  const u = record(value);
  if (u === undefined || !text(u['routeId']) || !count(u['hits']) || !count(u['rejections']) || !timestamp(u['since'])) return undefined;
  const rawKeys = u['busiestKeys'];
  if (!Array.isArray(rawKeys) || rawKeys.length > MAX_KEYS) return undefined;
  const busiestKeys = rawKeys.map(readKeyUsage);
  if (busiestKeys.some((k) => k === undefined)) return undefined;
  return { routeId: u['routeId'], hits: u['hits'], rejections: u['rejections'], busiestKeys: busiestKeys as KeyUsage[], since: u['since'] };
}

function readResult(value: unknown): CommandResult | undefined {
  const r = record(value);
  switch (r?.['subject']) {
    case 'circuit-breaker': {
      const breaker = nullable(r['breaker'], readBreaker);
      return breaker === undefined ? undefined : { subject: 'circuit-breaker', breaker };
    }
    case 'cache':
      return count(r['purged']) ? { subject: 'cache', purged: r['purged'] } : undefined;
    case 'health': {
      const check = nullable(r['check'], readCheck);
      const breaker = nullable(r['breaker'], readBreaker);
      return check === undefined || breaker === undefined ? undefined : { subject: 'health', check, breaker };
    }
    case 'rate-limit': {
      const usage = nullable(r['usage'], readUsage);
      return usage === undefined ? undefined : { subject: 'rate-limit', usage };
    }
    case 'logs': {
      const raw = r['lines'];
      if (!Array.isArray(raw) || raw.length > LOGS_MAX_LIMIT || !count(r['total'])) return undefined;
      const lines = raw.map(readLogLine);
      return lines.some((line) => line === undefined) ? undefined : { subject: 'logs', lines: lines as LogLine[], total: r['total'] };
    }
    default:
      return undefined;
  }
}

/** A data plane's reply whose result answers `subject`; undefined for anything else. */
export function readReply<S extends ResultSubject>(raw: unknown, subject: S): CommandReply<ResultOf<S>> | undefined {
  const m = record(raw);
  if (m === undefined || !text(m['commandId']) || !text(m['instanceId']) || !timestamp(m['at'])) return undefined;
  const result = readResult(m['result']);
  if (result?.subject !== subject) return undefined;
  return { commandId: m['commandId'], instanceId: m['instanceId'], at: m['at'], result: result as ResultOf<S> };
}

/** The command id of a reply-shaped message (to find its pending command before reading the rest). */
export function replyCommandId(raw: unknown): string | undefined {
  const id = record(raw)?.['commandId'];
  return text(id) ? id : undefined;
}
