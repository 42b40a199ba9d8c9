import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { constants } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';

/** The nice value of a thread from /proc (field 19 of stat; the name in field 2 may hold spaces, so count after its ')'). */
function niceOf(statPath: string): number {
  const text = readFileSync(statPath, 'utf8');
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return Number(fields[16]);
}

/** A worker thread that lowers its own priority and reports its nice value, read from /proc/thread-self. */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const { lowerThisThreadPriority } = require(${JSON.stringify(path.join(__dirname, 'thread-priority.js'))});
const lowered = lowerThisThreadPriority();
let nice;
try {
  const text = readFileSync('/proc/thread-self/stat', 'utf8');
  nice = Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[16]);
} catch {
  nice = undefined;
}
parentPort.postMessage({ lowered, nice });
`;

test('a worker lowers its own thread to nice 19 and leaves the serving thread as it was (elsewhere than Linux: changes nothing)', async () => {
  const linux = existsSync('/proc/thread-self');
  const mainBefore = linux ? niceOf(`/proc/self/task/${process.pid}/stat`) : undefined;
  const worker = new Worker(WORKER_SOURCE, { eval: true });
  const report = await new Promise<{ lowered: boolean; nice: number | undefined }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  await worker.terminate();
  if (!linux) {
    assert.equal(report.lowered, false, 'without per-thread priorities the whole process would be lowered');
    return;
  }
  assert.equal(report.lowered, true);
  assert.equal(report.nice, constants.priority.PRIORITY_LOW);
  assert.equal(niceOf(`/proc/self/task/${process.pid}/stat`), mainBefore, 'the main thread keeps its priority');
});
