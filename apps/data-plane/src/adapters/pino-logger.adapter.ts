import type { SecretText } from '@gateway/logging';
import { createGatewayPino } from '@gateway/logging/gateway-pino';
import type { Logger } from '../engine/ports';

/**
 * The gateway's one pino format on stdout (`plane: "data"`), with the shared redaction: field
 * names from REDACTED_LOG_PATHS and credential-shaped values, so a careless log call cannot leak a
 * token. `recorder` is the ring buffer behind `GET /api/logs` (the control plane's in one process);
 * `secrets` the configured values replaced wherever they appear.
 */
export function createPinoLogger(level = 'info', outputs: { recorder?: { write(line: string): void }; secrets?: SecretText } = {}): Logger {
  const logger = createGatewayPino({ plane: 'data', level, ...outputs });
  return {
    debugEnabled: logger.isLevelEnabled('debug'),
    debug: (fields, message) => logger.debug(fields, message),
    info: (fields, message) => logger.info(fields, message),
    warn: (fields, message) => logger.warn(fields, message),
    error: (fields, message) => logger.error(fields, message),
  };
}
