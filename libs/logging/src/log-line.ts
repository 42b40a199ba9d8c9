import type { LogLine, LogLineLevel, LogPlane } from '@gateway/events';
import { LOG_LINE_LEVELS } from '@gateway/events/data-plane';

export { LOG_LINE_LEVELS, type LogLine, type LogLineLevel, type LogPlane };

/** pino's numeric levels, the `level` of every JSON line on stdout. */
export const PINO_LEVELS: Readonly<Record<LogLineLevel, number>> = { fatal: 60, error: 50, warn: 40, info: 30, debug: 20, trace: 10 };

/** Fields of a JSON line that LogLine carries in its own properties, or that say nothing about the event. */
const ENVELOPE_FIELDS = new Set(['level', 'time', 'msg', 'plane', 'component', 'context', 'correlationId', 'service', 'pid', 'hostname']);

function levelName(level: unknown): LogLineLevel {
  if (typeof level === 'string' && (LOG_LINE_LEVELS as readonly string[]).includes(level)) return level as LogLineLevel;
  const numeric = typeof level === 'number' ? level : PINO_LEVELS.info;
  return LOG_LINE_LEVELS.find((name) => numeric >= PINO_LEVELS[name]) ?? 'trace';
}

function isPlane(value: unknown): value is LogPlane {
  return value === 'control' || value === 'data' || value === 'cli';
}

/** A JSON line of the common format (any plane's stdout) as a LogLine; undefined when it is not one. */
export function logLineOf(record: unknown): LogLine | undefined {
  if (record === null || typeof record !== 'object' || Array.isArray(record)) return undefined;
  const fields = record as Record<string, unknown>;
  const time = typeof fields['time'] === 'string' ? fields['time'] : typeof fields['time'] === 'number' ? new Date(fields['time']).toISOString() : new Date().toISOString();
  const component = fields['component'] ?? fields['context'];
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) if (!ENVELOPE_FIELDS.has(key)) rest[key] = value;
  return {
    time,
    level: levelName(fields['level']),
    plane: isPlane(fields['plane']) ? fields['plane'] : 'control',
    context: typeof component === 'string' ? component : null,
    correlationId: typeof fields['correlationId'] === 'string' ? fields['correlationId'] : null,
    message: typeof fields['msg'] === 'string' ? fields['msg'] : '',
    fields: rest,
  };
}

/** Bounds of a line received from another process (a data plane's reply on the bus). */
const MAX_WIRE_TEXT = 8192;
const MAX_WIRE_FIELDS_CHARS = 16_384;

/**
 * A LogLine from untrusted input (another process's reply): undefined unless it has the shape;
 * long text is cut and oversized `fields` are dropped, so one reply cannot flood the buffer.
 */
export function readLogLine(value: unknown): LogLine | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const m = value as Record<string, unknown>;
  const { time, level, plane, context, correlationId, message, fields } = m;
  if (typeof time !== 'string' || Number.isNaN(Date.parse(time)) || time.length > 64) return undefined;
  if (!(LOG_LINE_LEVELS as readonly unknown[]).includes(level) || !isPlane(plane) || typeof message !== 'string') return undefined;
  if ((context !== null && typeof context !== 'string') || (correlationId !== null && typeof correlationId !== 'string')) return undefined;
  if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) return undefined;
  const fieldsFit = JSON.stringify(fields).length <= MAX_WIRE_FIELDS_CHARS;
  return {
    time,
    level: level as LogLineLevel,
    plane,
    context: context === null ? null : context.slice(0, MAX_WIRE_TEXT),
    correlationId: correlationId === null ? null : correlationId.slice(0, MAX_WIRE_TEXT),
    message: message.slice(0, MAX_WIRE_TEXT),
    fields: fieldsFit ? (fields as Record<string, unknown>) : { truncated: true },
  };
}
