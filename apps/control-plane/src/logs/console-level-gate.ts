import { writeSync } from 'node:fs';
import { PINO_LEVELS } from '@gateway/logging';
import type { LogLevel } from '../config/control-plane-config';

/** pino writes `{"level":<n>,` first; reading the number there spares parsing every line. */
const LEVEL_PREFIX = /^\{"level":(\d+)/;

/**
 * The console (stdout) side of the control plane's logger, filtered by a level that can change
 * while running (settings `general.logLevel`). pino's multistream fixes each stream's level when
 * it is built, so this gate does the filtering instead; writes are synchronous like
 * pino.destination({ sync: true }), so lines are not lost when the process exits.
 */
export class ConsoleLevelGate {
  private threshold: number;

  constructor(level: LogLevel, private readonly fd = 1) {
    this.threshold = thresholdOf(level);
  }

  setLevel(level: LogLevel): void {
    this.threshold = thresholdOf(level);
  }

  write(line: string): void {
    const level = Number(LEVEL_PREFIX.exec(line)?.[1] ?? PINO_LEVELS.fatal);
    if (level >= this.threshold) writeSync(this.fd, line);
  }
}

function thresholdOf(level: LogLevel): number {
  return level === 'silent' ? Number.POSITIVE_INFINITY : PINO_LEVELS[level];
}
