export { REDACTED, REDACTED_FIELD_NAMES, REDACTED_LOG_PATHS } from './redacted-paths';
export { SecretText } from './secret-text';
export { LOG_LINE_LEVELS, PINO_LEVELS, logLineOf, readLogLine, type LogLine, type LogLineLevel, type LogPlane } from './log-line';
export { DEFAULT_LOG_BUFFER_CAPACITY, LOGS_MAX_LIMIT, LogRingBuffer, matches, type LogQuery } from './log-ring-buffer';
export { currentCorrelationId, runWithCorrelationId } from './request-context';
