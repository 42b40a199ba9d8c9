/*
 * A structured log line as GET /api/logs returns it and as a data plane sends it over the bus in
 * reply to a logs-query command (route-operations.types.ts). Produced by @gateway/logging.
 */

/** Severity order of LOG_LEVEL's names (most severe first). */
export const LOG_LINE_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
export type LogLineLevel = (typeof LOG_LINE_LEVELS)[number];

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
