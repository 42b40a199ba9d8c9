import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DeadlineWheel, type DeadlineSlot } from './deadline-wheel';

interface Owner {
  name: string;
  deadline: DeadlineSlot<Owner> | undefined;
}
const owner = (name: string): Owner => ({ name, deadline: undefined });

test('fires a deadline once it is due, not before, and never twice', () => {
  const wheel = new DeadlineWheel<Owner>();
  const fired: string[] = [];
  wheel.schedule(owner('a'), 100, (o) => fired.push(o.name));
  wheel.sweep(performance.now() + 50);
  assert.deepEqual(fired, []);
  wheel.sweep(performance.now() + 101);
  assert.deepEqual(fired, ['a']);
  wheel.sweep(performance.now() + 1000);
  assert.deepEqual(fired, ['a']);
  wheel.close();
});

test('a cancelled deadline never fires; scheduling again replaces the previous one', () => {
  const wheel = new DeadlineWheel<Owner>();
  const fired: string[] = [];
  const a = owner('a');
  const b = owner('b');
  wheel.schedule(a, 100, (o) => fired.push(o.name));
  wheel.schedule(b, 100, (o) => fired.push(o.name));
  wheel.cancel(a);
  wheel.schedule(b, 300, (o) => fired.push(`${o.name}-again`));
  wheel.sweep(performance.now() + 150);
  assert.deepEqual(fired, []);
  wheel.sweep(performance.now() + 301);
  assert.deepEqual(fired, ['b-again']);
  assert.deepEqual(wheel.stats(), { slots: 0, live: 0 });
  wheel.close();
});

test('a live deadline at the head does not keep cancelled owners alive behind it', () => {
  const wheel = new DeadlineWheel<Owner>();
  const slow = owner('slow');
  wheel.schedule(slow, 60_000, () => undefined);
  const finished = Array.from({ length: 10_000 }, (_, i) => owner(`o${i}`));
  for (const o of finished) {
    wheel.schedule(o, 60_000, () => undefined);
    wheel.cancel(o);
  }
  wheel.sweep(performance.now() + 10);
  const { slots, live } = wheel.stats();
  assert.equal(live, 1, 'only the slow owner is still referenced');
  assert.ok(slots <= 10_001);
  assert.ok(finished.every((o) => o.deadline === undefined));
  wheel.close();
});

test('different durations keep their own order; their callbacks are their own', () => {
  const wheel = new DeadlineWheel<Owner>();
  const fired: string[] = [];
  wheel.schedule(owner('late'), 500, (x) => fired.push(`late:${x.name}`));
  wheel.schedule(owner('early'), 100, (x) => fired.push(`early:${x.name}`));
  wheel.sweep(performance.now() + 250);
  assert.deepEqual(fired, ['early:early']);
  wheel.sweep(performance.now() + 600);
  assert.deepEqual(fired, ['early:early', 'late:late']);
  wheel.close();
});

test('the sweep runs by itself', async () => {
  const wheel = new DeadlineWheel<Owner>();
  const keepAlive = setTimeout(() => undefined, 2000); // the wheel's own timer is unref'd
  const fired = await new Promise<string>((resolve) => wheel.schedule(owner('x'), 30, (o) => resolve(o.name)));
  clearTimeout(keepAlive);
  assert.equal(fired, 'x');
  wheel.close();
});
