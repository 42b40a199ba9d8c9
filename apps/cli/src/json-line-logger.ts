import { createGatewayPino, type GatewayPino } from '@gateway/logging/gateway-pino';

/**
 * The CLI's own log lines while `gateway start` runs: the gateway's one pino format (`plane:
 * "cli"`) with its shared redaction, so one JSON stream on stdout carries every plane. Nothing but
 * JSON goes to stdout while the gateway runs: log shippers parse every line.
 */
export class JsonLineLogger {
  private logger!: GatewayPino;

  constructor(level: string | undefined, private readonly write: (line: string) => void) {
    this.setLevel(level);
  }

  /** LOG_LEVEL may only be known after .env is loaded. Unknown names mean info, as in the data plane. */
  setLevel(level: string | undefined): void {
    // `write` adds its own newline; pino's line ends with one.
    this.logger = createGatewayPino({ plane: 'cli', level, destination: { write: (line) => this.write(line.trimEnd()) } });
  }

  info(fields: Record<string, unknown>, msg: string): void {
    this.logger.info(fields, msg);
  }

  warn(fields: Record<string, unknown>, msg: string): void {
    this.logger.warn(fields, msg);
  }

  error(fields: Record<string, unknown>, msg: string): void {
    this.logger.error(fields, msg);
  }
}
