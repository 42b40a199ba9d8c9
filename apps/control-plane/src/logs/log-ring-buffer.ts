/** Severity order of LOG_LEVEL's names (most severe first). */
export const LOG_LINE_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
export type LogLineLevel = (typeof LOG_LINE_LEVELS)[number];

/** One structured log line as `GET /api/logs` returns it. */
export interface LogLine {
  time: string;
  level: LogLineLevel;
  context: string | null;
  message: string;
}

export interface LogQuery {
  /** Newest `limit` matching lines. */
  limit: number;
  /** This level and more severe. */
  level?: LogLineLevel;
  /** Only lines strictly after this instant (for following). */
  since?: Date;
}

export const DEFAULT_LOG_BUFFER_CAPACITY = 1000;

const REDACTED = '[REDACTED]';
/** Credentials that may end up inside a message: bearer tokens, JWTs, password fields, URL passwords. */
const SECRET_PATTERNS: ReadonlyArray<[RegExp, (match: string, head: string) => string]> = [
  [/\b(Bearer|ApiKey)\s+[A-Za-z0-9._~+/=-]+/gi, (_match, scheme) => `${scheme} ${REDACTED}`],
  [/\beyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g, () => REDACTED],
  // Gateway API keys (api-keys/api-key-material.ts), should one ever be written into a message.
  [/\bgw_[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g, () => REDACTED],
  [/("?(?:password|passwd|secret|token|apiKey|api_key)"?\s*[:=]\s*)(?:"[^"]*"|[^\s,&}]+)/gi, (_match, key) => `${key}${REDACTED}`],
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^:/?#\s@]*:)[^@/\s]+@/gi, (_match, head) => `${head}${REDACTED}@`],
];

/**
 * The recent log lines of this control plane, bounded (oldest dropped first). Lines are redacted
 * when recorded: the configured secrets (JWT secret, cluster token, admin password) and anything
 * shaped like a credential never reach the buffer, so `GET /api/logs` cannot leak them.
 */
export class LogRingBuffer {
  private readonly lines: LogLine[] = [];
  private readonly secrets: string[];

  constructor(
    secrets: ReadonlyArray<string | undefined> = [],
    private readonly capacity = DEFAULT_LOG_BUFFER_CAPACITY,
  ) {
    // Longest first, so a secret containing another is replaced whole.
    this.secrets = secrets.filter((s): s is string => s !== undefined && s.length >= 6).sort((a, b) => b.length - a.length);
  }

  record(level: LogLineLevel, context: string | undefined, message: string, time = new Date()): void {
    this.lines.push({ time: time.toISOString(), level, context: context ?? null, message: this.redact(message) });
    if (this.lines.length > this.capacity) this.lines.splice(0, this.lines.length - this.capacity);
  }

  /** Matching lines in chronological order (the newest `limit`), and how many matched in all. */
  query(query: LogQuery): { lines: LogLine[]; total: number } {
    const depth = query.level === undefined ? LOG_LINE_LEVELS.length - 1 : LOG_LINE_LEVELS.indexOf(query.level);
    const since = query.since?.getTime();
    const matching = this.lines.filter((line) => LOG_LINE_LEVELS.indexOf(line.level) <= depth && (since === undefined || Date.parse(line.time) > since));
    return { lines: matching.slice(Math.max(0, matching.length - query.limit)), total: matching.length };
  }

  redact(message: string): string {
    let out = message;
    for (const secret of this.secrets) out = out.split(secret).join(REDACTED);
    for (const [pattern, replace] of SECRET_PATTERNS) out = out.replace(pattern, replace);
    return out;
  }
}
