import pino, { type DestinationStream, type Logger, type StreamEntry } from 'pino';
import { PINO_LEVELS, type LogPlane } from './log-line';
import { REDACTED, REDACTED_LOG_PATHS } from './redacted-paths';
import { currentCorrelationId } from './request-context';
import { SecretText } from './secret-text';

export type { Logger as GatewayPino } from 'pino';

/** LOG_LEVEL's names; anything else means info (as it always has in the data plane). */
const LEVEL_NAMES = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

export interface GatewayPinoOptions {
  plane: LogPlane;
  /** LOG_LEVEL: what reaches `destination`. */
  level?: string;
  /** Default: stdout. Takes one JSON line (ending in a newline) per call. */
  destination?: { write(line: string): void };
  /**
   * Also receives every line of at least `info` (or `level` when more verbose), even when the
   * console is quieter or silent: the ring buffer behind `GET /api/logs`.
   */
  recorder?: { write(line: string): void };
  /** Configured secret values replaced in every line (the value-based half of redaction). */
  secrets?: SecretText;
}

/**
 * The one logger of the gateway: pino JSON lines with the same fields in every plane and the CLI
 * (`level` numeric, `time` ISO 8601, `msg`, `service`, `plane`, `pid`, then `component` and
 * `correlationId` where they apply). Credentials are removed twice: by field name (the shared
 * REDACTED_LOG_PATHS list) and by value (configured secrets and credential-shaped text in the
 * message and in every string field).
 */
export function createGatewayPino(options: GatewayPinoOptions): Logger {
  const level = options.level !== undefined && LEVEL_NAMES.has(options.level) ? options.level : 'info';
  const secrets = options.secrets ?? new SecretText();
  const streams: StreamEntry[] = [];
  if (level !== 'silent') streams.push({ level: level as pino.Level, stream: (options.destination ?? sharedStdout()) as DestinationStream });
  const recordLevel = levelValue(level) > PINO_LEVELS.info ? 'info' : (level as pino.Level);
  if (options.recorder !== undefined) streams.push({ level: recordLevel, stream: options.recorder as DestinationStream });
  // The logger itself runs at the most verbose level any stream wants; each stream filters on its own.
  const loggerLevel = streams.map((entry) => entry.level as string).sort((a, b) => levelValue(a) - levelValue(b))[0] ?? 'silent';
  return pino(
    {
      level: loggerLevel,
      base: { service: 'gateway', plane: options.plane, pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: [...REDACTED_LOG_PATHS], censor: REDACTED },
      // A request's lines carry its correlation id even where the caller did not pass it.
      mixin: () => {
        const correlationId = currentCorrelationId();
        return correlationId === undefined ? {} : { correlationId };
      },
      formatters: { log: (fields) => secrets.redactValue(fields) as Record<string, unknown> },
      hooks: {
        logMethod(args, method) {
          const redacted = args.map((arg) => (typeof arg === 'string' ? secrets.redact(arg) : arg)) as typeof args;
          method.apply(this, redacted);
        },
      },
    },
    // One destination needs no fan-out (the data plane alone on stdout: the common case).
    streams.length === 1 ? (streams[0]!.stream as DestinationStream) : pino.multistream(streams),
  );
}

let stdout: DestinationStream | undefined;

/**
 * One stdout destination per process, as pino's default (asynchronous, flushed on exit): both
 * planes of a one-process gateway write through it, so their lines never interleave mid-line.
 */
function sharedStdout(): DestinationStream {
  return (stdout ??= pino.destination({ dest: 1, sync: false }));
}

function levelValue(name: string): number {
  return name === 'silent' ? Number.POSITIVE_INFINITY : PINO_LEVELS[name as keyof typeof PINO_LEVELS];
}
