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
  assert.deepEqual(wheel.stats(), { pending: 0, lists: 0 });
  wheel.close();
});

test('a cancelled deadline is unlinked at once: nothing of a finished owner stays behind a live one', () => {
  const wheel = new DeadlineWheel<Owner>();
  const slow = owner('slow');
  wheel.schedule(slow, 60_000, () => undefined);
  const finished = Array.from({ length: 10_000 }, (_, i) => owner(`o${i}`));
  const slots = finished.map((o) => {
    wheel.schedule(o, 60_000, () => undefined);
    const slot = o.deadline as DeadlineSlot<Owner>;
    wheel.cancel(o);
    return slot;
  });
  assert.deepEqual(wheel.stats(), { pending: 1, lists: 1 }, 'only the slow owner is scheduled, without a sweep');
  assert.ok(finished.every((o) => o.deadline === undefined));
  assert.ok(slots.every((s) => s.owner === undefined && s.prev === undefined && s.next === undefined), 'cancelled slots hold no references');
  const live = slow.deadline as DeadlineSlot<Owner>;
  assert.equal(live.next, undefined);
  wheel.close();
});

test('cancelling the middle, the head or the tail keeps the others in order', () => {
  const wheel = new DeadlineWheel<Owner>();
  const fired: string[] = [];
  const all = ['a', 'b', 'c', 'd', 'e'].map(owner);
  for (const o of all) wheel.schedule(o, 100, (x) => fired.push(x.name));
  wheel.cancel(all[2] as Owner);
  wheel.cancel(all[0] as Owner);
  wheel.cancel(all[4] as Owner);
  wheel.sweep(performance.now() + 101);
  assert.deepEqual(fired, ['b', 'd']);
  wheel.close();
});

test('lists of odd durations (retries: what is left of the budget) are dropped once empty', () => {
  const wheel = new DeadlineWheel<Owner>();
  for (let i = 0; i < 100; i += 1) {
    const o = owner(`r${i}`);
    wheel.schedule(o, 1000 + i + 0.5, () => undefined);
    wheel.cancel(o);
  }
  assert.equal(wheel.stats().lists, 100);
  wheel.sweep(performance.now());
  assert.deepEqual(wheel.stats(), { pending: 0, lists: 0 });
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
