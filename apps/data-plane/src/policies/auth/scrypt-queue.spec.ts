import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ScryptQueue } from './scrypt-queue';

describe('ScryptQueue', () => {
  it('runs at most `concurrency` tasks, queues up to `maxWaiting`, refuses the rest without running them', async () => {
    const queue = new ScryptQueue(2, 1);
    let running = 0;
    let most = 0;
    const releases: Array<() => void> = [];
    const started: number[] = [];
    const task = (id: number) => () =>
      new Promise<number>((resolve) => {
        started.push(id);
        running += 1;
        most = Math.max(most, running);
        releases.push(() => {
          running -= 1;
          resolve(id);
        });
      });
    const runs = [1, 2, 3, 4].map((id) => queue.run(task(id)));
    assert.equal(runs[3], undefined, 'the fourth finds two running and one waiting');
    assert.deepEqual(started, [1, 2]);
    releases.shift()?.();
    await runs[0];
    assert.deepEqual(started, [1, 2, 3], 'a freed slot starts the waiting task');
    while (releases.length > 0) releases.shift()?.();
    assert.deepEqual(await Promise.all(runs.slice(0, 3)), [1, 2, 3]);
    assert.equal(most, 2);
  });

  it('a failing task frees its slot', async () => {
    const queue = new ScryptQueue(1, 0);
    await assert.rejects(queue.run(() => Promise.reject(new Error('boom'))) as Promise<never>, /boom/);
    assert.equal(await queue.run(() => Promise.resolve('next')), 'next');
  });
});
