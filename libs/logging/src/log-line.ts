/** Severity order of LOG_LEVEL's names (most severe first). */
export const LOG_LINE_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
export type LogLineLevel = (typeof LOG_LINE_LEVELS)[number];

/** pino's numeric levels, the `level` of every JSON line on stdout. */
export const PINO_LEVELS: Readonly<Record<LogLineLevel, number>> = { fatal: 60, error: 50, warn: 40, info: 30, debug: 20, trace: 10 };

/** Which part of the gateway wrote a line (the `plane` field of every line). */
export type LogPlane = 'control' | 'data' | 'cli';

/** One structured log line as `GET /api/logs` and `gateway logs` return it. */
export interface LogLine {
  time: string;
  level: LogLineLevel;
  /** The plane that wrote it; lines from another data plane carry its instance id in `instance`. */
  plane: LogPlane;
  /** The component (a NestJS context such as `Auth` or `HTTP`, or `redis-bus`); null when none. */
  context: string | null;
  /** The request the line is about, when it is about one (the X-Correlation-ID of its response). */
  correlationId: string | null;
  message: string;
  /** Every other field of the line (already redacted). */
  fields: Record<string, unknown>;
  /** The data plane that wrote it, when it came over the bus from another process. */
  instance?: string;
}

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
