import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DeadlineWheel } from './deadline-wheel';

const owner = (name: string) => ({ name, deadlineToken: 0 });

test('fires a deadline once it is due, not before', () => {
  const wheel = new DeadlineWheel<ReturnType<typeof owner>>();
  const fired: string[] = [];
  const a = owner('a');
  wheel.schedule(a, 100, (o) => fired.push(o.name));
  wheel.sweep(performance.now() + 50);
  assert.deepEqual(fired, []);
  wheel.sweep(performance.now() + 101);
  assert.deepEqual(fired, ['a']);
  wheel.sweep(performance.now() + 1000);
  assert.deepEqual(fired, ['a'], 'never twice');
  wheel.close();
});

test('a cancelled deadline never fires, and a rescheduled one fires only for its new time', () => {
  const wheel = new DeadlineWheel<ReturnType<typeof owner>>();
  const fired: string[] = [];
  const a = owner('a');
  const b = owner('b');
  wheel.schedule(a, 100, (o) => fired.push(o.name));
  wheel.schedule(b, 100, (o) => fired.push(o.name));
  wheel.cancel(a);
  wheel.schedule(b, 300, (o) => fired.push(`${o.name}-again`));
  wheel.sweep(performance.now() + 150);
  assert.deepEqual(fired, [], 'a was cancelled; b was rescheduled');
  wheel.sweep(performance.now() + 301);
  assert.deepEqual(fired, ['b-again']);
  assert.equal(wheel.pending(), 0);
  wheel.close();
});

test('entries of different durations fire in their own order; consumed entries are dropped', () => {
  const wheel = new DeadlineWheel<ReturnType<typeof owner>>();
  const fired: string[] = [];
  const owners = Array.from({ length: 5000 }, (_, i) => owner(`o${i}`));
  for (const o of owners) {
    wheel.schedule(o, 200, (x) => fired.push(x.name));
    wheel.cancel(o);
  }
  const late = owner('late');
  const early = owner('early');
  wheel.schedule(late, 500, (x) => fired.push(x.name));
  wheel.schedule(early, 100, (x) => fired.push(x.name));
  wheel.sweep(performance.now() + 250);
  assert.deepEqual(fired, ['early']);
  assert.equal(wheel.pending(), 1);
  wheel.sweep(performance.now() + 600);
  assert.deepEqual(fired, ['early', 'late']);
  wheel.close();
});

test('the sweep runs by itself', async () => {
  const wheel = new DeadlineWheel<ReturnType<typeof owner>>();
  const keepAlive = setTimeout(() => undefined, 2000); // the wheel's own timer is unref'd
  const fired = await new Promise<string>((resolve) => wheel.schedule(owner('x'), 30, (o) => resolve(o.name)));
  clearTimeout(keepAlive);
  assert.equal(fired, 'x');
  wheel.close();
});
