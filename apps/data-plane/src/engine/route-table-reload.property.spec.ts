import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { diffRoutes, validateProxyConfig, type ProxyConfig, type Route, type RouteDiff } from '@gateway/route-model';
import { createPinoLogger } from '../adapters/pino-logger.adapter';
import { POLICY_FACTORIES } from '../policies/policy-registry';
import { createTestServices } from '../testing/engine-services.fixture';
import { DeadlineWheel } from './deadline-wheel';
import type { Exchange } from './exchange';
import { RouteTable, type TableInputs } from './route-table';
import { runToEnd } from './time-slices';
import { UpstreamHealthRegistry } from './upstream-health-registry';
import { UpstreamPools } from './upstream-target';

/*
 * A full reload updates the previous table's route index instead of building one when the new
 * list keeps the indexed routes in their order. Whatever a sequence of reloads does (edits,
 * removals, appends, insertions, reorders, routes switched off and on), every table must match
 * exactly like a table compiled afresh from its configuration, and the previous table, once its
 * index moved on, must still answer as itself. Paths come from a tiny alphabet so that overlaps and
 * ties (broken by list position) are common.
 */

interface RouteSpec {
  id: string;
  path: string;
  priority: number;
  methods?: readonly string[] | undefined;
  enabled: boolean;
  upstream: string;
}

const SEGMENTS = ['a', 'b', '*'];
const pathArb = fc.array(fc.constantFrom(...SEGMENTS), { maxLength: 3 }).map((s) => `/${s.join('/')}`);
const specArb: fc.Arbitrary<Omit<RouteSpec, 'id'>> = fc.record({
  path: pathArb,
  priority: fc.constantFrom(0, 50, 50, 100),
  methods: fc.option(fc.constantFrom(['GET'], ['POST'], ['GET', 'POST']), { nil: undefined }),
  enabled: fc.constantFrom(true, true, true, false),
  upstream: fc.constantFrom('http://127.0.0.1:9/x', 'http://127.0.0.1:9/y'),
});

type Edit =
  | { kind: 'change'; at: number; spec: Omit<RouteSpec, 'id'> }
  | { kind: 'remove'; at: number }
  | { kind: 'append'; spec: Omit<RouteSpec, 'id'> }
  | { kind: 'insert'; at: number; spec: Omit<RouteSpec, 'id'> }
  | { kind: 'swap'; at: number; with: number }
  | { kind: 'toggle'; at: number };

const at = fc.nat({ max: 20 });
const editArb: fc.Arbitrary<Edit> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('change' as const), at, spec: specArb }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('remove' as const), at }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('append' as const), spec: specArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('insert' as const), at, spec: specArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('swap' as const), at, with: at }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('toggle' as const), at }) },
);

/** The edits applied in turn; one that would give a path to two routes is left out (a configuration refuses that). */
function applyEdits(list: RouteSpec[], edits: readonly Edit[], nextId: () => string): RouteSpec[] {
  const out = list.slice();
  for (const edit of edits) {
    const i = out.length === 0 ? 0 : ('at' in edit ? edit.at : 0) % out.length;
    const current = out[i];
    if ('spec' in edit && out.some((route, j) => route.path === edit.spec.path && !(edit.kind === 'change' && j === i))) continue;
    if (edit.kind === 'append') out.push({ id: nextId(), ...edit.spec });
    else if (edit.kind === 'insert') out.splice(i, 0, { id: nextId(), ...edit.spec });
    else if (current === undefined) continue;
    else if (edit.kind === 'change') out[i] = { id: current.id, ...edit.spec };
    else if (edit.kind === 'remove') out.splice(i, 1);
    else if (edit.kind === 'toggle') out[i] = { ...current, enabled: !current.enabled };
    else {
      const j = edit.with % out.length;
      out[i] = out[j] as RouteSpec;
      out[j] = current;
    }
  }
  return out;
}

function config(list: readonly RouteSpec[]): ProxyConfig {
  const routes = list.map(({ methods, ...rest }) => (methods === undefined ? rest : { ...rest, methods }));
  const result = validateProxyConfig({ version: '1.0.0', routes });
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.value;
}

/** Every path of up to three segments over the alphabet (plus a trailing slash), with both methods. */
const PROBES: Array<[string, string]> = (() => {
  const paths = ['/', '/a/', '/c'];
  const grow = (prefix: string, depth: number): void => {
    for (const segment of ['a', 'b', 'c']) {
      paths.push(`${prefix}/${segment}`);
      if (depth < 3) grow(`${prefix}/${segment}`, depth + 1);
    }
  };
  grow('', 1);
  return paths.flatMap((path): Array<[string, string]> => [
    ['GET', path],
    ['POST', path],
  ]);
})();

const diffIds = (diff: RouteDiff): Record<string, string[]> => ({
  added: diff.added.map((r) => r.id),
  changed: diff.changed.map((c) => c.after.id),
  removed: diff.removed.map((r) => r.id),
});

/** Alternately removes a route and moves another to the other upstream, as the control plane's messages would. */
function changeMessage(served: ProxyConfig, turn: number): { config: ProxyConfig; upserted: Route[]; removedIds: string[] } | undefined {
  const routes = served.routes;
  if (routes.length === 0) return undefined;
  const target = routes[turn % routes.length] as Route;
  if (turn % 2 === 0) return { config: { ...served, routes: routes.filter((r) => r !== target) }, upserted: [], removedIds: [target.id] };
  const moved: Route = { ...target, upstream: target.upstream.endsWith('/x') ? 'http://127.0.0.1:9/y' : 'http://127.0.0.1:9/x' };
  return { config: { ...served, routes: routes.map((r) => (r === target ? moved : r)) }, upserted: [moved], removedIds: [] };
}

describe('RouteTable: a full reload that updates the previous index matches like a fresh build', () => {
  const logger = createPinoLogger('silent');
  const { services, close } = createTestServices({ logger, health: new UpstreamHealthRegistry(), deadlines: new DeadlineWheel<Exchange>() });
  const pools = new UpstreamPools();
  const inputs: TableInputs = { factories: POLICY_FACTORIES, baseEnv: { settings: config([]).proxy, services }, pools };
  after(() => {
    pools.destroy();
    close();
  });

  const answers = (table: RouteTable): string[] => PROBES.map(([method, path]) => `${method} ${path} -> ${table.match(method, path)?.id ?? '-'}`);
  const fresh = (source: ProxyConfig): string[] => answers(runToEnd(RouteTable.buildSteps({ config: source }, inputs, undefined)).table);

  it('holds over sequences of reloads', () => {
    let updated = 0;
    fc.assert(
      fc.property(fc.array(specArb, { minLength: 1, maxLength: 10 }), fc.array(fc.array(editArb, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 4 }), (initial, reloads) => {
        let counter = 0;
        const nextId = (): string => `r${counter++}`;
        let list = initial.filter((spec, i) => initial.findIndex((other) => other.path === spec.path) === i).map((spec) => ({ id: nextId(), ...spec }));
        let table = runToEnd(RouteTable.buildSteps({ config: config(list) }, inputs, undefined)).table;
        for (const edits of reloads) {
          const before = table;
          const beforeAnswers = answers(before);
          list = applyEdits(list, edits, nextId);
          const next = config(list);
          const built = runToEnd(RouteTable.buildSteps({ config: next }, inputs, before));
          if (built.indexUpdated === true) updated += 1;
          built.table.settleIndex();
          assert.deepEqual(answers(built.table), fresh(next));
          // The previous table gave its index away: matched again, it answers as itself.
          assert.deepEqual(answers(before), beforeAnswers);
          // Routes are found in place or by id: the diff is the one of the two lists.
          assert.deepEqual(diffIds(built.diff), diffIds(diffRoutes(before.config.routes, next.routes)));
          table = built.table;
          // A change message right after (it finds the routes it replaces by id, in the map the table took over).
          const message = changeMessage(table.config, counter);
          if (message === undefined) continue;
          const changed = table.withChanges(message, inputs);
          assert.ok(changed !== undefined);
          assert.deepEqual(answers(changed.table), fresh(message.config));
          list = message.config.routes.map((r) => ({ id: r.id, path: r.path, priority: r.priority, methods: r.methods, enabled: r.enabled, upstream: r.upstream }));
          table = changed.table;
        }
      }),
      { numRuns: 150 },
    );
    // The property is about the update path: most sequences must have taken it.
    assert.ok(updated > 50, `only ${updated} reloads updated the previous index`);
  });
});
