import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeTempDir, manyRoutesConfig } from '@gateway/testing';
import { loadProxyConfig } from './proxy-config-source';
import { ReloadWorker } from './reload-worker';

/**
 * A worker that misbehaves on request, by the file name it is asked to read: `crash` ends the
 * thread, `throw` throws out of its handler, `hang` never answers, `throw-later` answers and then
 * throws while idle; anything else gets an empty, valid answer.
 */
const MISBEHAVING_WORKER = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', ({ read, filePath }) => {
  const name = require('node:path').basename(filePath);
  if (name === 'crash') process.exit(3);
  if (name === 'throw') throw new Error('parser bug');
  if (name === 'hang') return;
  const records = { bytes: new Uint8Array(0), jsonStarts: new Uint32Array(0), ends: new Uint32Array(0) };
  parentPort.postMessage({ read, kind: 'config', config: { version: '1.0.0', routes: [] }, routes: 0 });
  parentPort.postMessage({ read, kind: 'routes', records });
  parentPort.postMessage({ read, kind: 'done' });
  if (name === 'throw-later') setTimeout(() => { throw new Error('late bug'); }, 20);
});
`;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** ReloadWorkers on MISBEHAVING_WORKER, one per bound given; their threads and script are removed afterwards. */
async function withMisbehavingWorkers(timeoutsMs: readonly number[], body: (workers: ReloadWorker[]) => Promise<void>): Promise<void> {
  const dir = makeTempDir();
  const script = path.join(dir.path, 'misbehaving-worker.js');
  writeFileSync(script, MISBEHAVING_WORKER);
  const workers = timeoutsMs.map((timeoutMs) => new ReloadWorker({ script, timeoutMs, idleMs: 60_000 }));
  try {
    await body(workers);
  } finally {
    await Promise.all(workers.map((w) => w.close()));
    dir.remove();
  }
}

async function until(condition: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await sleep(10);
  return condition();
}

test('the real worker is kept across reads, gives what the event loop reads, and ends once idle', async () => {
  const dir = makeTempDir();
  const script = path.join(__dirname, 'proxy-config-worker.js');
  // Two workers, one per claim: reads between which the test parses the file itself can lie further
  // apart than a short idleMs on a loaded machine (a second thread then started: 2 !== 1).
  const worker = new ReloadWorker({ script, timeoutMs: 60_000, idleMs: 600_000 });
  const idling = new ReloadWorker({ script, timeoutMs: 60_000, idleMs: 300 });
  try {
    const file = path.join(dir.path, 'proxy.yml');
    for (const changed of [new Set<number>(), new Set([7])]) {
      writeFileSync(file, manyRoutesConfig({ count: 50, upstreamOrigin: 'http://127.0.0.1:9', changed }).yaml);
      const read = await worker.read(file);
      const expected = await loadProxyConfig(file);
      assert.equal(read.ok, true, JSON.stringify(read).slice(0, 300));
      assert.equal(expected.ok, true);
      if (!read.ok || !expected.ok) return;
      assert.deepEqual(read.config, { ...expected.config, routes: [] });
      assert.equal(read.records.ends.length, expected.config.routes.length);
      const last = Buffer.from(read.records.bytes.subarray(read.records.jsonStarts[49], read.records.ends[49])).toString('utf8');
      assert.equal(last, JSON.stringify(expected.config.routes[49]));
    }
    writeFileSync(file, 'routes: [');
    const invalid = await worker.read(file);
    assert.deepEqual(invalid, await loadProxyConfig(file), 'an invalid file: the errors the event loop gives');
    assert.equal(worker.threadsStarted, 1, 'three reads, one thread');
    assert.equal((await idling.read(file)).ok, false);
    assert.equal(await until(() => !idling.running, 10_000), true, 'the thread ends once idle');
    assert.equal((await idling.read(file)).ok, false);
    assert.equal(idling.threadsStarted, 2, 'a read after the idle end starts a thread again');
  } finally {
    await Promise.all([worker.close(), idling.close()]);
    dir.remove();
  }
});

test('a worker that crashes, throws or takes too long fails that read only; the next read starts a new thread', async () => {
  // The bound is generous (a thread's start alone took over half a second at a load average of 16), except for `hang`.
  await withMisbehavingWorkers([20_000, 3_000], async ([worker, impatient]) => {
    assert.ok(worker !== undefined && impatient !== undefined);
    assert.equal((await worker.read('/x/fine')).ok, true);
    const cases: Array<[string, RegExp, ReloadWorker]> = [
      ['crash', /exited \(code 3\) before it finished/, worker],
      ['throw', /failed: parser bug/, worker],
      ['hang', /hang took longer than 3 s/, impatient],
    ];
    for (const [name, message, reader] of cases) {
      const failed = await reader.read(`/x/${name}`);
      assert.equal(failed.ok, false, name);
      if (failed.ok) return;
      assert.equal(failed.errors[0]?.code, 'RELOAD_FAILED');
      assert.match(failed.errors[0]?.message ?? '', message);
      const started = reader.threadsStarted;
      assert.equal((await reader.read('/x/fine')).ok, true, `a read after "${name}"`);
      assert.equal(reader.threadsStarted, started + 1, `a new thread after "${name}"`);
    }
    // A thread that dies between reads is forgotten, and the process goes on.
    assert.equal((await worker.read('/x/throw-later')).ok, true);
    assert.equal(await until(() => !worker.running, 5_000), true, 'the thread that threw while idle is gone');
    const started = worker.threadsStarted;
    assert.equal((await worker.read('/x/fine')).ok, true);
    assert.equal(worker.threadsStarted, started + 1);
  });
});

test('reads asked for while one runs are answered in turn, each with its own result', async () => {
  await withMisbehavingWorkers([20_000], async ([worker]) => {
    assert.ok(worker !== undefined);
    const results = await Promise.all([worker.read('/x/fine'), worker.read('/x/crash'), worker.read('/x/fine')]);
    assert.deepEqual(
      results.map((r) => r.ok),
      [true, false, true],
    );
  });
});
