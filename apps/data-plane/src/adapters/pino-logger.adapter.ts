import { createGatewayPino } from '@gateway/logging/gateway-pino';
import type { Logger } from '../engine/ports';

/**
 * The gateway's one pino format on stdout (`plane: "data"`), with the shared redaction: field
 * names from REDACTED_LOG_PATHS and credential-shaped values, so a careless log call cannot leak a
 * token. `recorder` is the ring buffer behind `GET /api/logs` (the control plane's in one process).
 */
export function createPinoLogger(level = 'info', recorder?: { write(line: string): void }): Logger {
  const logger = createGatewayPino({ plane: 'data', level, ...(recorder === undefined ? {} : { recorder }) });
  return {
    debugEnabled: logger.isLevelEnabled('debug'),
    debug: (fields, message) => logger.debug(fields, message),
    info: (fields, message) => logger.info(fields, message),
    warn: (fields, message) => logger.warn(fields, message),
    error: (fields, message) => logger.error(fields, message),
  };
}
