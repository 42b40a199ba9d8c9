import type { CommandMessage, StatusSubject } from '@gateway/events';
import { LOG_LINE_LEVELS, LOGS_MAX_LIMIT, type LogLineLevel } from '@gateway/logging';

/** Bounds of the strings a command carries (a route id is at most 64 characters; file ids are derived from paths). */
const MAX_ID_LENGTH = 128;
const MAX_ROUTE_ID_LENGTH = 512;
const SUBJECTS: readonly StatusSubject[] = ['circuit-breaker', 'health', 'rate-limit'];

export type CommandRead = { ok: true; command: CommandMessage } | { ok: false; reason: string };

function boundedString(value: unknown, max: number): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= max;
}

/**
 * A command from the bus, if it has the shape of the contract (libs/events). The bus is untrusted
 * input: anything else is refused with the reason, never applied. Unknown extra fields are ignored
 * (a newer control plane may add some).
 */
export function readCommandMessage(raw: unknown): CommandRead {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { ok: false, reason: 'not an object' };
  const m = raw as Record<string, unknown>;
  const { id, routeId, kind } = m;
  if (!boundedString(id, MAX_ID_LENGTH)) return { ok: false, reason: `id must be a string of 1 to ${MAX_ID_LENGTH} characters` };
  if (kind === 'logs-query') return readLogsQuery(id, m);
  if (!boundedString(routeId, MAX_ROUTE_ID_LENGTH)) return { ok: false, reason: `routeId must be a string of 1 to ${MAX_ROUTE_ID_LENGTH} characters` };
  switch (kind) {
    case 'circuit-breaker': {
      const action = m['action'];
      if (action !== 'trip' && action !== 'reset') return { ok: false, reason: 'action must be trip or reset' };
      const holdUntil = m['holdUntil'];
      if (holdUntil === undefined) return { ok: true, command: { kind, id, routeId, action } };
      if (action !== 'trip' || !boundedString(holdUntil, 64) || Number.isNaN(Date.parse(holdUntil))) return { ok: false, reason: 'holdUntil must be an ISO 8601 timestamp on a trip' };
      return { ok: true, command: { kind, id, routeId, action, holdUntil } };
    }
    case 'cache-purge':
      return { ok: true, command: { kind, id, routeId } };
    case 'status-query': {
      const subject = m['subject'];
      if (!SUBJECTS.includes(subject as StatusSubject)) return { ok: false, reason: `subject must be one of ${SUBJECTS.join(', ')}` };
      return { ok: true, command: { kind, id, routeId, subject: subject as StatusSubject } };
    }
    default:
      return { ok: false, reason: 'unknown kind' };
  }
}

/** A logs query names no route: its bounds are the API's (limit 1..1000, a level name, an ISO instant). */
function readLogsQuery(id: string, m: Record<string, unknown>): CommandRead {
  const { limit, level, since } = m;
  if (!Number.isSafeInteger(limit) || (limit as number) < 1 || (limit as number) > LOGS_MAX_LIMIT) return { ok: false, reason: `limit must be an integer from 1 to ${LOGS_MAX_LIMIT}` };
  if (level !== undefined && !(LOG_LINE_LEVELS as readonly unknown[]).includes(level)) return { ok: false, reason: `level must be one of ${LOG_LINE_LEVELS.join(', ')}` };
  if (since !== undefined && (!boundedString(since, 64) || Number.isNaN(Date.parse(since)))) return { ok: false, reason: 'since must be an ISO 8601 timestamp' };
  return {
    ok: true,
    command: { kind: 'logs-query', id, limit: limit as number, ...(level === undefined ? {} : { level: level as LogLineLevel }), ...(since === undefined ? {} : { since: since as string }) },
  };
}
