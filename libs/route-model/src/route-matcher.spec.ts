import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRouteMatcher } from './route-matcher';
import type { HttpMethod, Route } from './route.types';

interface RouteSpec {
  path: string;
  priority?: number;
  methods?: HttpMethod[];
  createdAt?: string;
  enabled?: boolean;
}

function route(id: string, spec: RouteSpec): Route {
  return {
    id,
    path: spec.path,
    upstream: 'http://backend',
    enabled: spec.enabled ?? true,
    description: '',
    priority: spec.priority ?? 50,
    tags: [],
    stripPath: true,
    timeout: { request: 5000 },
    ...(spec.methods ? { methods: spec.methods } : {}),
    ...(spec.createdAt ? { createdAt: spec.createdAt } : {}),
  };
}

/** A matcher whose values are the route ids; `match` returns the winning id or undefined. */
function matcher(routes: Record<string, RouteSpec>): (method: string, path: string) => string | undefined {
  const m = createRouteMatcher(Object.entries(routes).map(([id, spec]) => ({ route: route(id, spec), value: id })));
  return (method, path) => m.match(method, path)?.value;
}

describe('createRouteMatcher: patterns (decision 15)', () => {
  const match = matcher({
    exact: { path: '/exact/path' },
    prefix: { path: '/prefix/*' },
    wild: { path: '/api/*/resource' },
    root: { path: '/' },
  });

  it('matches an exact path exactly, case-sensitively, without trailing-slash folding', () => {
    assert.equal(match('GET', '/exact/path'), 'exact');
    assert.equal(match('GET', '/exact/path/'), undefined);
    assert.equal(match('GET', '/Exact/path'), undefined);
    assert.equal(match('GET', '/exact/path/more'), undefined);
    assert.equal(match('GET', '/exact'), undefined);
  });

  it('matches /prefix/* on /prefix and everything below', () => {
    assert.equal(match('GET', '/prefix'), 'prefix');
    assert.equal(match('GET', '/prefix/'), 'prefix');
    assert.equal(match('GET', '/prefix/a'), 'prefix');
    assert.equal(match('GET', '/prefix/a/b/c'), 'prefix');
    assert.equal(match('GET', '/prefixed'), undefined);
  });

  it('matches a middle * on exactly one non-empty segment', () => {
    assert.equal(match('GET', '/api/x/resource'), 'wild');
    assert.equal(match('GET', '/api/resource'), undefined);
    assert.equal(match('GET', '/api/x/y/resource'), undefined);
    assert.equal(match('GET', '/api/x/resource/more'), undefined);
  });

  it('matches / only on /', () => {
    assert.equal(match('GET', '/'), 'root');
    assert.equal(match('GET', '/nothing'), undefined);
  });

  it('refuses a path that does not start with /', () => {
    assert.equal(match('GET', '*'), undefined);
    assert.equal(match('GET', ''), undefined);
  });

  it('lets /* match every path, / included', () => {
    const all = matcher({ all: { path: '/*' } });
    assert.equal(all('GET', '/'), 'all');
    assert.equal(all('GET', '/a/b'), 'all');
  });

  it('treats a final /* after a middle * as "and below"', () => {
    const m = matcher({ p: { path: '/a/*/b/*' } });
    assert.equal(m('GET', '/a/x/b'), 'p');
    assert.equal(m('GET', '/a/x/b/c/d'), 'p');
    assert.equal(m('GET', '/a/x'), undefined);
    const twoStars = matcher({ p: { path: '/a/*/*' } });
    assert.equal(twoStars('GET', '/a/x'), 'p');
    assert.equal(twoStars('GET', '/a/'), undefined);
  });
});

describe('createRouteMatcher: order (decision 14)', () => {
  it('prefers the higher priority over specificity', () => {
    const match = matcher({ exact: { path: '/a/b', priority: 10 }, prefix: { path: '/a/*', priority: 20 } });
    assert.equal(match('GET', '/a/b'), 'prefix');
  });

  it('on equal priority prefers exact over patterns', () => {
    const match = matcher({ prefix: { path: '/a/*' }, exact: { path: '/a/b' } });
    assert.equal(match('GET', '/a/b'), 'exact');
    assert.equal(match('GET', '/a/c'), 'prefix');
  });

  it('then more literal segments', () => {
    const match = matcher({ short: { path: '/a/*' }, wild: { path: '/a/*/c' }, deeper: { path: '/a/b/*' } });
    assert.equal(match('GET', '/a/x/c'), 'wild');
    assert.equal(match('GET', '/a/b/c'), 'deeper');
    assert.equal(match('GET', '/a/x/d'), 'short');
  });

  it('then the longer literal prefix', () => {
    const match = matcher({ wild: { path: '/a/*/resource' }, longer: { path: '/a/bb/*' } });
    assert.equal(match('GET', '/a/bb/resource'), 'longer');
    const reversed = matcher({ longer: { path: '/abc/*/x' }, short: { path: '/ab/*/x' } });
    assert.equal(reversed('GET', '/abc/q/x'), 'longer');
  });

  it('then the older route, then the earlier one in the list', () => {
    const byAge = matcher({
      young: { path: '/a/*', createdAt: '2024-06-01T00:00:00Z' },
      old: { path: '/a/*', createdAt: '2024-01-01T00:00:00Z' },
      undated: { path: '/a/*' },
    });
    assert.equal(byAge('GET', '/a/x'), 'old');
    const byPosition = matcher({ first: { path: '/a/*' }, second: { path: '/a/*' } });
    assert.equal(byPosition('GET', '/a/x'), 'first');
    const undatedLast = matcher({ undated: { path: '/a/*' }, dated: { path: '/a/*', createdAt: '2030-01-01T00:00:00Z' } });
    assert.equal(undatedLast('GET', '/a/x'), 'dated');
  });
});

describe('createRouteMatcher: methods', () => {
  it('matches only the listed methods and all methods when none are listed', () => {
    const match = matcher({ get: { path: '/r', methods: ['GET'] }, any: { path: '/any' } });
    assert.equal(match('GET', '/r'), 'get');
    assert.equal(match('POST', '/r'), undefined);
    assert.equal(match('PROPFIND', '/any'), 'any');
    assert.equal(match('DELETE', '/any'), 'any');
  });

  it('lets HEAD match a route that allows GET', () => {
    const match = matcher({ get: { path: '/r', methods: ['GET'] }, post: { path: '/p', methods: ['POST'] } });
    assert.equal(match('HEAD', '/r'), 'get');
    assert.equal(match('HEAD', '/p'), undefined);
    assert.equal(matcher({ head: { path: '/h', methods: ['HEAD'] } })('GET', '/h'), undefined);
  });

  it('is case-sensitive about method names (RFC 9110 9.1)', () => {
    assert.equal(matcher({ get: { path: '/r', methods: ['GET'] } })('get', '/r'), undefined);
  });

  it('falls through to the next candidate when the best one does not allow the method', () => {
    const match = matcher({
      postOnly: { path: '/a/b', methods: ['POST'], priority: 100 },
      exactGet: { path: '/a/b', methods: ['GET'], priority: 10 },
      fallback: { path: '/a/*' },
    });
    assert.equal(match('POST', '/a/b'), 'postOnly');
    assert.equal(match('GET', '/a/b'), 'fallback');
    assert.equal(match('PUT', '/a/b'), 'fallback');
    const noFallback = matcher({ postOnly: { path: '/a/b', methods: ['POST'] }, getOnly: { path: '/a/*', methods: ['GET'] } });
    assert.equal(noFallback('GET', '/a/b'), 'getOnly');
    assert.equal(noFallback('DELETE', '/a/b'), undefined);
  });
});

describe('createRouteMatcher: results', () => {
  it('returns the value, route and compiled pattern, the same object every time', () => {
    const r = route('x', { path: '/x/*' });
    const m = createRouteMatcher([{ route: r, value: 42 }]);
    const found = m.match('GET', '/x/y');
    assert.equal(found?.value, 42);
    assert.equal(found?.route, r);
    assert.equal(found?.pattern.source, '/x/*');
    assert.equal(m.match('GET', '/x/z'), found);
  });

  it('leaves disabled routes out and counts what it indexed', () => {
    const m = createRouteMatcher([
      { route: route('on', { path: '/a' }), value: 'on' },
      { route: route('off', { path: '/b', enabled: false }), value: 'off' },
    ]);
    assert.equal(m.size, 1);
    assert.equal(m.match('GET', '/b'), undefined);
  });

  it('handles an empty table', () => {
    const m = createRouteMatcher<string>([]);
    assert.equal(m.size, 0);
    assert.equal(m.match('GET', '/'), undefined);
  });

  it('does not scan every route: 100 times more routes take the same number of index lookups per match', () => {
    // Counted, not timed (speed belongs to tools/bench): the trie's Map lookups a match makes, which
    // a scan of the routes would multiply by the table's size.
    const lookupsPerMatch = (count: number): number => {
      const entries = Array.from({ length: count }, (_, i) => ({ route: route(`r${i}`, { path: `/svc${i}/*` }), value: i }));
      const m = createRouteMatcher(entries);
      const paths = Array.from({ length: 100 }, (_, i) => `/svc${(i * 7919) % count}/items/1`);
      const get = Map.prototype.get;
      let lookups = 0;
      let found = 0;
      Map.prototype.get = function countedGet(this: Map<unknown, unknown>, key: unknown) {
        lookups += 1;
        return get.call(this, key);
      };
      try {
        for (const p of paths) found += m.match('GET', p) === undefined ? 0 : 1;
      } finally {
        Map.prototype.get = get;
      }
      assert.equal(found, paths.length);
      return lookups / paths.length;
    };
    const small = lookupsPerMatch(100);
    const large = lookupsPerMatch(10_000);
    assert.ok(small > 0, 'the matcher looks segments up in its index');
    assert.ok(large <= small * 2, `100 routes: ${small} lookups, 10000 routes: ${large} lookups per match`);
  });
});
