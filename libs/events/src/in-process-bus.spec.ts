import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InProcessBus } from './in-process-bus';

test('delivers published messages to subscribers of the channel only, after the publish call returns', async () => {
  const bus = new InProcessBus();
  const seen: string[] = [];
  await bus.subscribe<string>('a', (m) => seen.push(`a:${m}`));
  await bus.subscribe<string>('b', (m) => seen.push(`b:${m}`));
  await bus.publish('a', 'one');
  assert.deepEqual(seen, [], 'delivery is asynchronous');
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(seen, ['a:one']);
  await bus.close();
});

test('unsubscribe stops delivery', async () => {
  const bus = new InProcessBus();
  const seen: number[] = [];
  const stop = await bus.subscribe<number>('c', (m) => seen.push(m));
  await bus.publish('c', 1);
  await new Promise((resolve) => setImmediate(resolve));
  stop();
  await bus.publish('c', 2);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(seen, [1]);
});
