import pino from 'pino';
import type { Logger } from '../engine/ports';

const LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

/**
 * JSON lines on stdout. Field names that could carry credentials are redacted wherever they
 * appear, so a careless log call cannot leak a token.
 */
export function createPinoLogger(level = 'info'): Logger {
  const logger = pino({
    level: LEVELS.has(level) ? level : 'info',
    base: { service: 'gateway', plane: 'data' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: ['authorization', '*.authorization', 'headers.authorization', 'headers.cookie', 'password', '*.password', 'token', '*.token', 'secret', '*.secret'],
      censor: '[redacted]',
    },
  });
  return {
    debug: (fields, message) => logger.debug(fields, message),
    info: (fields, message) => logger.info(fields, message),
    warn: (fields, message) => logger.warn(fields, message),
    error: (fields, message) => logger.error(fields, message),
  };
}
