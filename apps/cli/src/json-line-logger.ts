import type { SecretText } from '@gateway/logging';
import { createGatewayPino, type GatewayPino } from '@gateway/logging/gateway-pino';

/** Where a control plane in this process wants log lines recorded, and what they must not hold. */
export interface LogOutputs {
  recorder?: { write(line: string): void };
  secrets?: SecretText;
}

/**
 * The CLI's own log lines while `gateway start` runs: the gateway's one pino format (`plane:
 * "cli"`) with its shared redaction, so one JSON stream on stdout carries every plane. Nothing but
 * JSON goes to stdout while the gateway runs: log shippers parse every line.
 */
export class JsonLineLogger {
  /**
   * Built at the first line after a change of settings, not at each change: a pino logger compiles
   * its redaction paths, and `gateway start` sets the level twice before it logs (start-up time,
   * issue 19).
   */
  private built: GatewayPino | undefined;
  private level: string | undefined;
  private outputs: LogOutputs = {};

  constructor(level: string | undefined, private readonly write: (line: string) => void) {
    this.level = level;
  }

  /** LOG_LEVEL may only be known after .env is loaded. Unknown names mean info, as in the data plane. */
  setLevel(level: string | undefined): void {
    this.level = level;
    this.built = undefined;
  }

  /** Once a control plane runs in this process: its buffer (GET /api/logs) and its secrets. */
  recordTo(outputs: LogOutputs): void {
    this.outputs = outputs;
    this.built = undefined;
  }

  private get logger(): GatewayPino {
    // `write` adds its own newline; pino's line ends with one.
    this.built ??= createGatewayPino({ plane: 'cli', level: this.level, destination: { write: (line) => this.write(line.trimEnd()) }, ...this.outputs });
    return this.built;
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
