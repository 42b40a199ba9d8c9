import { ConsoleLogger, type LogLevel as NestLogLevel } from '@nestjs/common';
import type { LogLevel } from '../config/control-plane-config';
import type { LogLineLevel, LogRingBuffer } from './log-ring-buffer';

const NEST_ORDER: readonly NestLogLevel[] = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'];
const DEPTH: Record<LogLevel, number> = { silent: 0, fatal: 1, error: 2, warn: 3, info: 4, debug: 5, trace: 6 };
const LINE_LEVEL: Record<NestLogLevel, LogLineLevel> = { fatal: 'fatal', error: 'error', warn: 'warn', log: 'info', debug: 'debug', verbose: 'trace' };
/** pino's numeric levels: the control plane's lines look like the data plane's (one parser for both). */
const PINO_LEVEL: Record<NestLogLevel, number> = { fatal: 60, error: 50, warn: 40, log: 30, debug: 20, verbose: 10 };
/** Nest's start-up chatter (one line per module, controller and route): debug, not info. */
const BOOTSTRAP_CONTEXTS = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication']);

/**
 * The control plane's logger: JSON lines on the console at LOG_LEVEL (as before), and every line
 * of at least `info` (or LOG_LEVEL when more verbose) into the ring buffer behind `GET /api/logs`,
 * even when the console is quieter or silent.
 */
export class RecordingLogger extends ConsoleLogger {
  private readonly consoleLevels: ReadonlySet<NestLogLevel>;

  constructor(
    level: LogLevel,
    private readonly buffer: LogRingBuffer,
  ) {
    const consoleLevels = NEST_ORDER.slice(0, DEPTH[level]);
    super({ json: true, logLevels: NEST_ORDER.slice(0, Math.max(DEPTH[level], DEPTH.info)) });
    this.consoleLevels = new Set(consoleLevels);
  }

  protected override printMessages(messages: unknown[], context?: string, nestLevel: NestLogLevel = 'log', _stream?: 'stdout' | 'stderr', errorStack?: unknown): void {
    const logLevel: NestLogLevel = nestLevel === 'log' && context !== undefined && BOOTSTRAP_CONTEXTS.has(context) ? 'debug' : nestLevel;
    for (const message of messages) {
      const text = typeof message === 'string' ? message : safeJson(message);
      this.buffer.record(LINE_LEVEL[logLevel], context, text);
      if (!this.consoleLevels.has(logLevel)) continue;
      const line: Record<string, unknown> = { level: PINO_LEVEL[logLevel], time: new Date().toISOString(), service: 'gateway', plane: 'control', context, msg: text };
      if (typeof errorStack === 'string' && (logLevel === 'error' || logLevel === 'fatal')) line['stack'] = errorStack;
      process.stdout.write(`${JSON.stringify(line)}\n`);
    }
  }
}

function safeJson(value: unknown): string {
  if (value instanceof Error) return value.message;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
