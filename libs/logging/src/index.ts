export { REDACTED, REDACTED_FIELD_NAMES, REDACTED_LOG_PATHS } from './redacted-paths';
export { SecretText } from './secret-text';
export { LOG_LINE_LEVELS, PINO_LEVELS, readLogLine, type LogLine, type LogLineLevel, type LogPlane } from './log-line';
export { LOGS_MAX_LIMIT, LogRingBuffer, newestWithin, type LogQuery } from './log-ring-buffer';
export { runWithCorrelationId } from './request-context';
