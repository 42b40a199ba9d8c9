import { closeSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeTempDir } from '@gateway/testing';
import { ConsoleLevelGate } from './console-level-gate';

const line = (level: number, msg: string): string => `{"level":${level},"time":"2026-01-01T00:00:00.000Z","msg":"${msg}"}\n`;

test('passes lines at or above its level, and follows a level change at once; silent passes nothing', () => {
  const dir = makeTempDir();
  const file = path.join(dir.path, 'console.log');
  const fd = openSync(file, 'w');
  try {
    const gate = new ConsoleLevelGate('warn', fd);
    gate.write(line(30, 'info before'));
    gate.write(line(40, 'warn before'));
    gate.setLevel('debug');
    gate.write(line(20, 'debug after'));
    gate.write(line(10, 'trace after'));
    gate.setLevel('silent');
    gate.write(line(60, 'fatal while silent'));
    // A line without the level prefix is not dropped as noise: it counts as fatal.
    gate.setLevel('error');
    gate.write('not json\n');
    assert.deepEqual(readFileSync(file, 'utf8').split('\n').filter(Boolean), [line(40, 'warn before').trim(), line(20, 'debug after').trim(), 'not json']);
  } finally {
    closeSync(fd);
    dir.remove();
  }
});
