const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Number.POSITIVE_INFINITY } as const;
type LevelName = keyof typeof LEVELS;

/**
 * The CLI's own log lines while `gateway start` runs, in the data plane's shape (pino: numeric
 * `level`, ISO `time`, `msg`) so one JSON stream on stdout carries both. Nothing but JSON goes to
 * stdout while the gateway runs: log shippers parse every line.
 */
export class JsonLineLogger {
  private threshold: number = LEVELS.info;

  constructor(level: string | undefined, private readonly write: (line: string) => void) {
    this.setLevel(level);
  }

  /** LOG_LEVEL may only be known after .env is loaded. Unknown names mean info, as in the data plane. */
  setLevel(level: string | undefined): void {
    this.threshold = level !== undefined && Object.hasOwn(LEVELS, level) ? LEVELS[level as LevelName] : LEVELS.info;
  }

  info(fields: Record<string, unknown>, msg: string): void {
    this.log('info', fields, msg);
  }

  warn(fields: Record<string, unknown>, msg: string): void {
    this.log('warn', fields, msg);
  }

  error(fields: Record<string, unknown>, msg: string): void {
    this.log('error', fields, msg);
  }

  private log(level: Exclude<LevelName, 'silent'>, fields: Record<string, unknown>, msg: string): void {
    if (LEVELS[level] < this.threshold) return;
    this.write(JSON.stringify({ level: LEVELS[level], time: new Date().toISOString(), service: 'gateway', plane: 'cli', pid: process.pid, ...fields, msg }));
  }
}
