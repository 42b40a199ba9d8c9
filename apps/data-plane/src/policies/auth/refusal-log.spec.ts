import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Logger } from '../../engine/ports';
import { RefusalLog } from './refusal-log';

class RecordingLogger implements Logger {
  readonly lines: Array<{ fields: Record<string, unknown>; message: string }> = [];
  debug(): void {}
  info(): void {}
  warn(fields: Record<string, unknown>, message: string): void {
    this.lines.push({ fields, message });
  }
  error(): void {}
}

describe('RefusalLog', () => {
  it('logs the first N refusals of an interval, then one summary by reason when the interval ends', () => {
    let now = 0;
    const logger = new RecordingLogger();
    const log = new RefusalLog(logger, { linesPerInterval: 2, intervalMs: 1000 }, () => now);
    for (const reason of ['a', 'b', 'a', 'a', 'b']) log.refused(reason, { routeId: 'r' });
    assert.equal(logger.lines.length, 2);
    assert.deepEqual(logger.lines.map((l) => l.fields['reason']), ['a', 'b']);
    now = 1000;
    log.refused('c', {});
    assert.equal(logger.lines.length, 4, 'the summary of the last interval, then the first line of the new one');
    assert.deepEqual(logger.lines[2]?.fields, { notLogged: 3, byReason: { a: 2, b: 1 }, intervalSeconds: 1 });
    assert.equal(logger.lines[3]?.fields['reason'], 'c');
    log.close();
    assert.equal(logger.lines.length, 4, 'nothing was held back');
  });

  it('writes the summary at the end of the interval even when the flood stops', async () => {
    const logger = new RecordingLogger();
    const log = new RefusalLog(logger, { linesPerInterval: 1, intervalMs: 50 });
    log.refused('a', {});
    log.refused('a', {});
    await new Promise((resolve) => setTimeout(resolve, 120));
    assert.deepEqual(logger.lines[1]?.fields['notLogged'], 1);
    log.close();
  });
});
