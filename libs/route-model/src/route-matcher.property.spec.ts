import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { createRouteMatcher, routeMatcherSteps } from './route-matcher';
import type { HttpMethod, Route } from './route.types';

/*
 * The trie matcher must pick exactly what the rules pick when applied the slow, obvious way:
 * keep every route whose pattern and methods match, sort by decision 14, take the first.
 * Paths come from a tiny alphabet so that overlaps, ties and fall-throughs are common.
 */

function segmentsOf(path: string): string[] {
  return path === '/' ? [] : path.slice(1).split('/');
}

function patternMatches(pattern: string, path: string): boolean {
  const p = segmentsOf(pattern);
  const s = segmentsOf(path);
  const below = p.length > 0 && p[p.length - 1] === '*';
  const fixed = below ? p.slice(0, -1) : p;
  if (below ? s.length < fixed.length : s.length !== fixed.length) return false;
  return fixed.every((segment, i) => (segment === '*' ? s[i] !== '' : segment === s[i]));
}

function methodAllowed(route: Route, method: string): boolean {
  if (route.methods === undefined) return true;
  return route.methods.includes(method as HttpMethod) || (method === 'HEAD' && route.methods.includes('GET'));
}

function literalPrefix(path: string): string {
  const segments = segmentsOf(path);
  const star = segments.indexOf('*');
  return star === -1 ? path : segments.slice(0, star).map((s) => `/${s}`).join('');
}

function referenceMatch(routes: readonly Route[], method: string, path: string): number | undefined {
  const candidates = routes
    .map((route, index) => ({ route, index }))
    .filter(({ route }) => route.enabled && patternMatches(route.path, path) && methodAllowed(route, method));
  candidates.sort((a, b) => {
    if (a.route.priority !== b.route.priority) return b.route.priority - a.route.priority;
    const aExact = !a.route.path.includes('*');
    const bExact = !b.route.path.includes('*');
    if (aExact !== bExact) return aExact ? -1 : 1;
    const aLiterals = segmentsOf(a.route.path).filter((s) => s !== '*').length;
    const bLiterals = segmentsOf(b.route.path).filter((s) => s !== '*').length;
    if (aLiterals !== bLiterals) return bLiterals - aLiterals;
    const aPrefix = literalPrefix(a.route.path).length;
    const bPrefix = literalPrefix(b.route.path).length;
    if (aPrefix !== bPrefix) return bPrefix - aPrefix;
    const aTime = a.route.createdAt === undefined ? Infinity : Date.parse(a.route.createdAt);
    const bTime = b.route.createdAt === undefined ? Infinity : Date.parse(b.route.createdAt);
    if (aTime !== bTime) return aTime < bTime ? -1 : 1;
    return a.index - b.index;
  });
  return candidates[0]?.index;
}

const pathFrom = (segments: string[]): string => `/${segments.join('/')}`;

const routeArb: fc.Arbitrary<Route> = fc
  .record({
    segments: fc.array(fc.constantFrom('a', 'b', 'ab', '*'), { maxLength: 4 }),
    priority: fc.constantFrom(0, 50, 50, 100),
    methods: fc.option(fc.subarray<HttpMethod>(['GET', 'POST', 'HEAD', 'DELETE'], { minLength: 1 }), { nil: undefined }),
    createdAt: fc.option(fc.constantFrom('2024-01-01T00:00:00Z', '2024-06-01T00:00:00.000Z', '2025-01-01T00:00:00+01:00'), { nil: undefined }),
    enabled: fc.constantFrom(true, true, true, false),
  })
  .map(({ segments, priority, methods, createdAt, enabled }) => ({
    id: 'r',
    path: pathFrom(segments),
    upstream: 'http://backend',
    enabled,
    description: '',
    priority,
    tags: [],
    stripPath: true,
    timeout: { request: 5000 },
    ...(methods === undefined ? {} : { methods }),
    ...(createdAt === undefined ? {} : { createdAt }),
  }));

const requestArb = fc.record({
  method: fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PROPFIND'),
  path: fc
    .tuple(fc.array(fc.constantFrom('a', 'b', 'ab', 'c'), { maxLength: 5 }), fc.boolean())
    .map(([segments, trailingSlash]) => (segments.length > 0 && trailingSlash ? `${pathFrom(segments)}/` : pathFrom(segments))),
});

describe('createRouteMatcher property', () => {
  it('agrees with the naive reference matcher on random tables and requests', () => {
    fc.assert(
      fc.property(fc.array(routeArb, { maxLength: 14 }), fc.array(requestArb, { minLength: 1, maxLength: 25 }), (routes, requests) => {
        const matcher = createRouteMatcher(routes.map((route, index) => ({ route, value: index })));
        for (const { method, path } of requests) {
          assert.equal(matcher.match(method, path)?.value, referenceMatch(routes, method, path), `${method} ${path}`);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('finds matches for generated tables often enough to mean something', () => {
    // Guards the test above against generators that never produce a match.
    let matched = 0;
    let missed = 0;
    fc.assert(
      fc.property(fc.array(routeArb, { minLength: 1, maxLength: 14 }), requestArb, (routes, { method, path }) => {
        if (referenceMatch(routes, method, path) === undefined) missed += 1;
        else matched += 1;
      }),
      { numRuns: 1000, seed: 42 },
    );
    assert.ok(matched > 200 && missed > 100, `matched ${matched}, missed ${missed}`);
  });
});

/** A change the control plane sends: a route replaced in its place, removed, or added at the end. */
type TableChange = { kind: 'replace'; at: number; route: Route } | { kind: 'remove'; at: number } | { kind: 'append'; route: Route };

const changeArb: fc.Arbitrary<TableChange> = fc.oneof(
  fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), route: routeArb }),
  fc.record({ kind: fc.constant('remove' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('append' as const), route: routeArb }),
);

describe('UpdatableRouteMatcher.update property', () => {
  it('after any sequence of changes, matches like a matcher built from the resulting list', () => {
    fc.assert(
      fc.property(
        fc.array(routeArb, { maxLength: 12 }),
        fc.array(changeArb, { minLength: 1, maxLength: 12 }),
        fc.array(requestArb, { minLength: 1, maxLength: 15 }),
        (initial, changes, requests) => {
          // Values are tokens unique to one version of one entry, so a stale entry cannot pass for a new one.
          // As in the data plane, a disabled route holds no place in the list: dropped, not kept.
          let token = 0;
          const list = initial.filter((route) => route.enabled).map((route) => ({ route, value: token++ }));
          const matcher = createRouteMatcher(list);
          for (const change of changes) {
            if (change.kind === 'append') {
              if (!change.route.enabled) continue;
              const entry = { route: change.route, value: token++ };
              list.push(entry);
              matcher.update([], [entry]);
            } else if (list.length > 0) {
              const at = change.at % list.length;
              const old = list[at] as { route: Route; value: number };
              if (change.kind === 'remove' || !change.route.enabled) {
                list.splice(at, 1);
                matcher.update([old], []);
              } else {
                const entry = { route: change.route, value: token++ };
                list[at] = entry;
                matcher.update([old], [{ ...entry, replaces: old.value }]);
              }
            }
            const routes = list.map((e) => e.route);
            for (const { method, path } of requests) {
              const expected = referenceMatch(routes, method, path);
              assert.equal(matcher.match(method, path)?.value, expected === undefined ? undefined : list[expected]?.value, `${method} ${path}`);
            }
            assert.equal(matcher.size, routes.filter((r) => r.enabled).length);
          }
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('renumbers when many routes are slotted between the same two neighbours', () => {
    const make = (id: string, priority: number, path: string): Route => ({ ...(fc.sample(routeArb, { numRuns: 1, seed: 1 })[0] as Route), id, priority, path, enabled: true, methods: undefined });
    const top = { route: make('top', 1000, '/x/*'), value: 'top' };
    const bottom = { route: make('bottom', 0, '/*'), value: 'bottom' };
    const matcher = createRouteMatcher([top, bottom]);
    // Each new route outranks the previous one but not `top`: every insertion halves the same gap.
    for (let p = 1; p <= 40; p += 1) matcher.update([], [{ route: make(`p${p}`, p, `/p${p}`), value: `p${p}` }]);
    assert.equal(matcher.match('GET', '/x/1')?.value, 'top');
    assert.equal(matcher.match('GET', '/elsewhere')?.value, 'bottom');
    for (let p = 1; p <= 40; p += 1) assert.equal(matcher.match('GET', `/p${p}`)?.value, `p${p}`);
    // A catch-all with priority 20 loses to p21..p40 on their own paths and wins elsewhere over bottom.
    matcher.update([], [{ route: make('mid', 20, '/*'), value: 'mid' }]);
    assert.equal(matcher.match('GET', '/p30')?.value, 'p30');
    assert.equal(matcher.match('GET', '/p10')?.value, 'mid');
    assert.equal(matcher.match('GET', '/elsewhere')?.value, 'mid');
  });

  it('builds in steps the same matcher a one-piece build gives', () => {
    fc.assert(
      fc.property(fc.array(routeArb, { maxLength: 600 }), fc.array(requestArb, { minLength: 1, maxLength: 10 }), (routes, requests) => {
        const entries = routes.map((route, index) => ({ route, value: index }));
        const steps = routeMatcherSteps(entries);
        let step = steps.next();
        let yields = 0;
        while (step.done !== true) {
          yields += 1;
          step = steps.next();
        }
        assert.ok(routes.length < 256 || yields > 1, 'a large table is built in more than one step');
        for (const { method, path } of requests) assert.equal(step.value.match(method, path)?.value, referenceMatch(routes, method, path), `${method} ${path}`);
      }),
      { numRuns: 100 },
    );
  });
});
