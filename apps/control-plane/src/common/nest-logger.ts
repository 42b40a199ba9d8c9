import { ConsoleLogger, type LogLevel as NestLogLevel } from '@nestjs/common';
import type { LogLevel } from '../config/control-plane-config';

const ORDER: readonly NestLogLevel[] = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'];
const DEPTH: Record<LogLevel, number> = { silent: 0, fatal: 1, error: 2, warn: 3, info: 4, debug: 5, trace: 6 };

/** JSON lines, at the LOG_LEVEL the data plane uses (pino names mapped to Nest's). */
export function createNestLogger(level: LogLevel): ConsoleLogger | false {
  if (level === 'silent') return false;
  return new ConsoleLogger({ json: true, logLevels: ORDER.slice(0, DEPTH[level]) });
}
