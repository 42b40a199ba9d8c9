import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Route, RouteDiff } from '@gateway/route-model';
import { validConfig } from '../testing/spec-helpers.fixture';
import { PendingRelease } from './released-routes';

function route(id: string, upstream = 'http://127.0.0.1:9'): Route {
  return validConfig({ routes: [{ id, path: `/${id}/*`, upstream }] }).routes[0] as Route;
}

const diff = (parts: Partial<RouteDiff>): RouteDiff => ({ added: [], changed: [], removed: [], ...parts });

test('what a burst of swaps left behind: every gone definition, and the route now under each id', () => {
  const pending = new PendingRelease();
  const a1 = route('a');
  const b1 = route('b');
  const b2 = route('b', 'http://127.0.0.1:10');
  const a2 = route('a', 'http://127.0.0.1:11');
  pending.add(diff({ removed: [a1] }), false);
  pending.add(diff({ changed: [{ before: b1, after: b2, fields: ['upstream'] }] }), false);
  pending.add(diff({ added: [a2, route('new')] }), false);
  const taken = pending.take();
  assert.ok(taken !== undefined && taken !== 'full');
  assert.deepEqual(taken.gone, [a1, b1]);
  assert.equal(taken.current('a'), a2, 'removed, then added back: live again');
  assert.equal(taken.current('b'), b2);
  assert.equal(pending.take(), undefined, 'taken once');
});

test('a swap that changed more than routes asks for a walk, until a pass finishes', () => {
  const pending = new PendingRelease();
  pending.add(diff({ removed: [route('a')] }), false);
  pending.add(diff({}), true);
  pending.add(diff({ removed: [route('b')] }), false);
  const taken = pending.take();
  assert.equal(taken, 'full');
  pending.settle(taken, false);
  assert.equal(pending.take(), 'full', 'an unfinished walk is walked again');
});

test('a pass that did not finish gives back what it took, and a route added meanwhile counts as live', () => {
  const pending = new PendingRelease();
  const a1 = route('a');
  pending.add(diff({ removed: [a1] }), false);
  const taken = pending.take();
  assert.ok(taken !== undefined && taken !== 'full');
  // While the pass runs, `a` comes back and `c` goes: the pass is interrupted.
  const a2 = route('a', 'http://127.0.0.1:12');
  const c1 = route('c');
  pending.add(diff({ added: [a2], removed: [c1] }), false);
  pending.settle(taken, false);
  const again = pending.take();
  assert.ok(again !== undefined && again !== 'full');
  assert.deepEqual(again.gone, [a1, c1], 'the older first');
  assert.equal(again.current('a'), a2);
  assert.equal(again.current('c'), undefined);
  pending.settle(again, true);
  assert.equal(pending.take(), undefined, 'a finished pass leaves nothing pending');
});

test('past 2,048 ids touched, a release walks instead of holding them all', () => {
  const pending = new PendingRelease();
  pending.add(diff({ removed: Array.from({ length: 2049 }, (_, i) => route(`r${i}`)) }), false);
  assert.equal(pending.take(), 'full');
});
