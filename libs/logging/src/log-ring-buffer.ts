import { LOG_LINE_LEVELS, logLineOf, type LogLine, type LogLineLevel } from './log-line';
import { SecretText } from './secret-text';

export interface LogQuery {
  /** Newest `limit` matching lines. */
  limit: number;
  /** This level and more severe. */
  level?: LogLineLevel;
  /** Only lines strictly after this instant (for following). */
  since?: Date;
}

export const DEFAULT_LOG_BUFFER_CAPACITY = 1000;
/** The most lines one query returns (GET /api/logs `limit`, a data plane's reply). */
export const LOGS_MAX_LIMIT = 1000;

/**
 * The recent log lines of this process, bounded (oldest dropped first). It is a pino destination
 * (`write` takes one JSON line), so every plane in the process can write to the same buffer. Lines
 * are redacted again when recorded: the configured secrets and anything shaped like a credential
 * never reach the buffer, whichever logger wrote them, so `GET /api/logs` cannot leak them.
 */
export class LogRingBuffer {
  private readonly lines: LogLine[] = [];
  readonly secrets: SecretText;

  constructor(
    secrets: ReadonlyArray<string | undefined> = [],
    private readonly capacity = DEFAULT_LOG_BUFFER_CAPACITY,
  ) {
    this.secrets = new SecretText(secrets);
  }

  /** One JSON line as a logger writes it; anything that is not a JSON object is dropped. */
  write(jsonLine: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(jsonLine);
    } catch {
      return;
    }
    const line = logLineOf(parsed);
    if (line !== undefined) this.record(line);
  }

  record(line: LogLine): void {
    this.lines.push({ ...line, message: this.secrets.redact(line.message), fields: this.secrets.redactValue(line.fields) as Record<string, unknown> });
    if (this.lines.length > this.capacity) this.lines.splice(0, this.lines.length - this.capacity);
  }

  /** Matching lines in chronological order (the newest `limit`), and how many matched in all. */
  query(query: LogQuery): { lines: LogLine[]; total: number } {
    const matching = this.lines.filter(matches(query));
    return { lines: matching.slice(Math.max(0, matching.length - query.limit)), total: matching.length };
  }
}

/** The filter of a query: level and since. */
function matches(query: Omit<LogQuery, 'limit'>): (line: LogLine) => boolean {
  const depth = query.level === undefined ? LOG_LINE_LEVELS.length - 1 : LOG_LINE_LEVELS.indexOf(query.level);
  const since = query.since?.getTime();
  return (line) => LOG_LINE_LEVELS.indexOf(line.level) <= depth && (since === undefined || Date.parse(line.time) > since);
}

/**
 * The newest of `lines` (chronological) whose JSON fits in `maxChars` together: what a data plane
 * sends in one bus reply, so a buffer of long lines cannot make a message of many megabytes.
 */
export function newestWithin(lines: readonly LogLine[], maxChars: number): LogLine[] {
  let used = 0;
  let first = lines.length;
  while (first > 0) {
    const size = JSON.stringify(lines[first - 1]).length + 1;
    if (used + size > maxChars) break;
    used += size;
    first -= 1;
  }
  return lines.slice(first);
}
