import {
  compilePathPattern,
  createRouteMatcher,
  deepEqual,
  diffRoutes,
  routeMatcherSteps,
  type ProxyConfig,
  type Route,
  type RouteDiff,
  type RouteMatcherEntry,
  type UpdatableRouteMatcher,
} from '@gateway/route-model';
import type { CompiledRoute } from './compiled-route';
import { forward } from './forward';
import { sortFactories } from './pipeline';
import type { PolicyEnvironment, PolicyFactory } from './policy';
import { PreviousRoutes } from './previous-routes';
import { RoutePipelines } from './route-pipelines';
import { TableRoute } from './table-route';
import { LIGHT_STEPS_PER_YIELD, runToEnd } from './time-slices';
import type { UpstreamPool } from './upstream-client/upstream-pool';
import type { UpstreamPools } from './upstream-target';
import { UpstreamTlsResolver, upstreamTlsKey } from './upstream-tls';
import type { UpstreamRegistry } from './upstreams/upstream-registry';

/** Everything a table is compiled from besides its routes. */
/** What policies see of every configuration; upstreamEnvironment() adds a configuration's upstreams. */
export type BaseEnvironment = Omit<PolicyEnvironment, 'upstreams' | 'upstreamTls'>;

export interface TableInputs {
  readonly factories: readonly PolicyFactory[];
  readonly baseEnv: BaseEnvironment;
  readonly pools: UpstreamPools;
  /** Balancers of named upstreams: a route naming one resolves its target through it per attempt. */
  readonly registry?: UpstreamRegistry;
  /**
   * What else route pipelines read when they compile (whether API keys can be verified): when it
   * differs from the previous table's, no compiled route is reused.
   */
  readonly extra?: string;
}

/** A full configuration to compile, with the fingerprint of each route when its loader made one. */
export interface TableSource {
  readonly config: ProxyConfig;
  /** `fingerprints[i]` identifies `config.routes[i]`'s content: equal fingerprints, equal routes. */
  readonly fingerprints?: ReadonlyArray<string | undefined>;
}

/** A few routes changed (the control plane's change messages): what `withChanges` applies. */
export interface RouteChanges {
  /** The configuration after the change (its routes are the table's, with the changes applied). */
  readonly config: ProxyConfig;
  readonly upserted: readonly Route[];
  readonly removedIds: readonly string[];
}

export interface BuiltTable {
  readonly table: RouteTable;
  readonly diff: RouteDiff;
  /** Routes built afresh (the rest were reused from the previous table); their pipelines compile at their first request. */
  readonly compiled: number;
  /** Reused routes given a new upstream target because their CA file changed (rotated, or no longer loads). */
  readonly retargeted: number;
  /** The table updates the previous table's route index when it takes it over (settleIndex) rather than building one. */
  readonly indexUpdated?: boolean;
}

/** What decides whether the previous table's compiled routes can be reused as they are. */
interface CompiledAgainst {
  readonly settings: PolicyEnvironment['settings'];
  readonly upstreams: ProxyConfig['upstreams'];
  readonly authentication: ProxyConfig['authentication'];
  readonly extra: string | undefined;
}

/**
 * A full reload's index as a few changes to the previous table's index (most routes of a reload
 * are unchanged: building 10,000 routes' index afresh kept about 7 MB of new objects per reload).
 * The changes are applied when the new table takes the index over (settleIndex, right before the
 * swap), never while the previous table still serves: a request sees one table or the other.
 */
interface PendingIndex {
  /** The table whose index is taken over, and that index as it was when the build read it. */
  readonly base: RouteTable;
  readonly matcher: UpdatableRouteMatcher<TableRoute>;
  /**
   * That table's routes by id, taken over and updated with the index (a new map of 10,000 ids each
   * reload was 10,000 inserts, two rehashes of a few ms each, and ~0.4 MB for the old generation).
   */
  readonly byId: Map<string, TableRoute>;
  readonly removed: Array<{ route: Route; value: TableRoute }>;
  readonly added: Array<RouteMatcherEntry<TableRoute> & { replaces?: TableRoute }>;
}

/**
 * Past this many index changes (a changed route is two: out and in), a reload builds its index
 * afresh in slices: the update runs in the swap's one synchronous step, and each change costs a
 * search and two splices of the rank-ordered list: 20-45 µs each at 10,000 routes on a loaded
 * 2-core machine, so 64 changes stay under 3 ms (tools/bench/README.md, "updates the running route index").
 */
const MAX_INDEX_UPDATES = 64;

/**
 * An immutable snapshot of the enabled routes, compiled for the hot path. A reload builds a new
 * table and swaps the reference; requests already matched keep the CompiledRoute they started with.
 *
 * A route whose definition did not change keeps its compiled pipeline (and so its policy objects)
 * from the previous table, as long as what pipelines are compiled against (proxy settings,
 * upstreams, authentication) did not change either: a reload of 10,000 routes compiles only what
 * changed. Full builds run in steps (`buildSteps`) that the caller spreads over the event loop.
 */
export class RouteTable {
  private constructor(
    readonly routes: readonly TableRoute[],
    /**
     * Moved, not shared, to the table `withChanges` or a full reload makes (see there and
     * settleIndex); a table whose index moved builds one of its own if it is ever matched again.
     */
    private index: UpdatableRouteMatcher<TableRoute> | undefined,
    /** Undefined until settleIndex when the table takes over the previous table's map with its index (PendingIndex). */
    private byId: Map<string, TableRoute> | undefined,
    readonly config: ProxyConfig,
    private readonly against: CompiledAgainst,
    readonly loadedAt: Date,
    private pending?: PendingIndex,
  ) {}

  /** Compiles a configuration in one piece (start-up, tests). */
  static compile(
    config: ProxyConfig,
    factories: readonly PolicyFactory[],
    baseEnv: BaseEnvironment,
    pools: UpstreamPools,
    registry?: UpstreamRegistry,
  ): RouteTable {
    const inputs = registry === undefined ? { factories, baseEnv, pools } : { factories, baseEnv, pools, registry };
    return runToEnd(RouteTable.buildSteps({ config }, inputs, undefined)).table;
  }

  /**
   * Builds a table in small steps (one route each, then the matcher's own steps). Unchanged routes
   * (same object, same fingerprint, or equal content) are taken from `previous`; the new table's
   * configuration holds their previous objects, so the next comparison is an identity check.
   */
  static *buildSteps(source: TableSource, inputs: TableInputs, previous: RouteTable | undefined): Generator<void, BuiltTable, void> {
    const { config, fingerprints } = source;
    const against = compiledAgainst(config, inputs);
    const reusable = previous !== undefined && sameInputs(previous.against, against);
    const tls = new UpstreamTlsResolver(config, inputs.baseEnv.services.logger, inputs.baseEnv.services.upstreamCaFiles);
    const compileOne = routeCompiler(config, inputs, tls);
    // The previous list's routes, found in place first (see PreviousRoutes): no map of every id a reload.
    const before = new PreviousRoutes(previous?.config.routes ?? []);
    // Sized once: 10,000 pushes grow a list's backing store step by step, about three times the
    // final array in young garbage (0.17 MB a list at 10,000 routes, every reload).
    const routes = new Array<Route>(config.routes.length);
    const compiled = new Array<TableRoute>(config.routes.length);
    let enabled = 0;
    const diff: RouteDiff = { added: [], changed: [], removed: [] };
    let fresh = 0;
    let retargeted = 0;
    // The previous index, updated rather than rebuilt, while the list keeps its routes in their order.
    const baseIndex = reusable ? previous.index : undefined;
    let plan: PendingIndex | undefined = previous !== undefined && baseIndex !== undefined ? { base: previous, matcher: baseIndex, byId: previous.routesById(), removed: [], added: [] } : undefined;
    let nextPrevious = 0;
    let appending = false;
    let light = 0;
    for (let i = 0; i < config.routes.length; i += 1) {
      const freshBefore = fresh;
      const route = config.routes[i] as Route;
      const fingerprint = fingerprints?.[i];
      const old = before.takeInPlace(i, route.id) ?? (yield* before.takeElsewhere(route.id));
      const oldCompiled = previous?.routesById().get(route.id);
      const same = old !== undefined && (old === route || (fingerprint !== undefined && oldCompiled?.route === old && oldCompiled.fingerprint === fingerprint) || deepEqual(old, route));
      const kept = same ? old : route;
      routes[i] = kept;
      if (old === undefined) diff.added.push(route);
      else if (!same) diff.changed.push(...diffRoutes([old], [route]).changed);
      if (kept.enabled) {
        let value: TableRoute;
        // The identity check: a change applied in place while this build ran replaces entries of
        // the previous index, and such an entry is not the compiled form of `old`.
        if (reusable && same && oldCompiled !== undefined && oldCompiled.route === old) {
          // A loader that makes no fingerprints (a small file read in this thread) leaves the route's own: it still names the same definition.
          value = fingerprint === undefined || oldCompiled.fingerprint === fingerprint ? oldCompiled : oldCompiled.withFingerprint(fingerprint);
          // CA files are read at every load: a rotated one reaches routes whose definition did not change.
          const current = tls.forRoute(kept);
          if (current !== value.upstreamTls && upstreamTlsKey(current) !== upstreamTlsKey(value.upstreamTls)) {
            value = value.withUpstreamTls(current);
            retargeted += 1;
          }
        } else {
          value = compileOne(kept, fingerprint);
          fresh += 1;
        }
        compiled[enabled] = value;
        enabled += 1;
        if (plan !== undefined && previous !== undefined) {
          // Indexed routes must keep their order (their positions break ties) and new ones come after
          // them. The previous table's routes are in the order of their index positions (a fresh
          // build numbers them in list order, an update keeps that order or builds afresh, a change
          // message replaces in place and appends), so the order is checked on that list, found
          // moving forward only: no lookup in the index per route.
          const indexed = oldCompiled === undefined || appending ? -1 : indexOfFrom(previous.routes, oldCompiled, nextPrevious);
          if (oldCompiled === undefined) {
            appending = true;
            plan.added.push({ route: kept, value, pattern: value.pattern });
          } else if (indexed === -1) {
            plan = undefined;
          } else {
            nextPrevious = indexed + 1;
            if (value !== oldCompiled) {
              plan.removed.push({ route: oldCompiled.route, value: oldCompiled });
              plan.added.push({ route: kept, value, pattern: value.pattern, replaces: oldCompiled });
            }
          }
        }
      } else if (plan !== undefined && oldCompiled !== undefined) {
        // Switched off: out of the index.
        plan.removed.push({ route: oldCompiled.route, value: oldCompiled });
      }
      if (plan !== undefined && plan.removed.length + plan.added.length > MAX_INDEX_UPDATES) plan = undefined;
      // A compiled route is a step of its own; reused ones go LIGHT_STEPS_PER_YIELD a step.
      light = fresh === freshBefore ? light + 1 : LIGHT_STEPS_PER_YIELD;
      if (light >= LIGHT_STEPS_PER_YIELD) {
        light = 0;
        yield;
      }
    }
    // Disabled routes are not in the table.
    compiled.length = enabled;
    // Whatever is left of the previous list was removed, in its order (and out of the index, if it was in it).
    yield* before.eachLeft((gone) => {
      diff.removed.push(gone);
      const indexed = plan === undefined ? undefined : previous?.routesById().get(gone.id);
      if (plan !== undefined && indexed !== undefined && indexed.route === gone) plan.removed.push({ route: gone, value: indexed });
      if (plan !== undefined && plan.removed.length + plan.added.length > MAX_INDEX_UPDATES) plan = undefined;
    });
    const newConfig = { ...config, routes };
    // A change applied in place while this build ran moved the index on: build one afresh then.
    if (plan !== undefined && previous !== undefined && previous.index === plan.matcher) {
      const table = new RouteTable(compiled, undefined, undefined, newConfig, against, new Date(), plan);
      return { table, diff, compiled: fresh, retargeted, indexUpdated: true };
    }
    const byId = new Map<string, TableRoute>();
    for (let i = 0; i < compiled.length; i += 1) {
      const value = compiled[i] as TableRoute;
      byId.set(value.id, value);
      if (i % 512 === 511) yield;
    }
    const entries: Array<RouteMatcherEntry<TableRoute>> = compiled.map((value) => ({ route: value.route, value, pattern: value.pattern }));
    const matcher = yield* routeMatcherSteps(entries);
    const table = new RouteTable(compiled, matcher, byId, newConfig, against, new Date());
    return { table, diff, compiled: fresh, retargeted };
  }

  /**
   * Takes over the index this table was built to update (a full reload, see PendingIndex): the
   * reloader calls it right before the swap, in the same synchronous step, so the previous table
   * stops serving as its index moves. When that index moved on meanwhile, or this table is matched
   * again after its own index moved, it builds one afresh (correct, only slower).
   */
  settleIndex(): UpdatableRouteMatcher<TableRoute> {
    if (this.index === undefined) {
      const pending = this.pending;
      this.pending = undefined;
      if (pending !== undefined && pending.base.index === pending.matcher) {
        pending.base.index = undefined;
        pending.matcher.update(pending.removed, pending.added);
        this.index = pending.matcher;
        // The previous table's map moves with its index (a change applied in place would have moved both on).
        pending.base.byId = undefined;
        for (const { value } of pending.removed) pending.byId.delete(value.id);
        for (const { value } of pending.added) pending.byId.set(value.id, value);
        this.byId = pending.byId;
      } else {
        this.index = createRouteMatcher(this.routes.map((value) => ({ route: value.route, value, pattern: value.pattern })));
      }
    }
    this.byId ??= new Map(this.routes.map((value) => [value.id, value]));
    return this.index;
  }

  /** The routes by id (settling the index first when the map comes with it). */
  private routesById(): Map<string, TableRoute> {
    if (this.byId === undefined) this.settleIndex();
    return this.byId as Map<string, TableRoute>;
  }

  /**
   * The table after a few route changes, compiled and indexed in time that follows the number of
   * changes, not of routes; undefined when the changes touch what every route is compiled against
   * (then the caller builds in full). This table's matcher and index move to the new table, updated
   * in place: this table must not be matched against afterwards. That is safe because the swap
   * happens in the same synchronous step, and requests already matched hold their CompiledRoute.
   */
  withChanges(changes: RouteChanges, inputs: TableInputs): BuiltTable | undefined {
    const against = compiledAgainst(changes.config, inputs);
    if (!sameInputs(this.against, against)) return undefined;
    const compileOne = routeCompiler(changes.config, inputs, new UpstreamTlsResolver(changes.config, inputs.baseEnv.services.logger, inputs.baseEnv.services.upstreamCaFiles));
    const byId = this.routesById();
    const diff: RouteDiff = { added: [], changed: [], removed: [] };
    const removed: Array<{ route: Route; value: TableRoute }> = [];
    const added: Array<RouteMatcherEntry<TableRoute> & { replaces?: TableRoute }> = [];
    const replaced = new Map<TableRoute, TableRoute | undefined>();
    for (const id of changes.removedIds) {
      const old = byId.get(id);
      if (old === undefined) continue;
      removed.push({ route: old.route, value: old });
      replaced.set(old, undefined);
      byId.delete(id);
      diff.removed.push(old.route);
    }
    const appended: TableRoute[] = [];
    for (const route of changes.upserted) {
      const old = byId.get(route.id);
      if (old !== undefined) {
        removed.push({ route: old.route, value: old });
        diff.changed.push(...diffRoutes([old.route], [route]).changed);
      } else diff.added.push(route);
      if (!route.enabled) {
        if (old !== undefined) replaced.set(old, undefined);
        byId.delete(route.id);
        continue;
      }
      const value = compileOne(route, undefined);
      added.push({ route, value, pattern: value.pattern, ...(old === undefined ? {} : { replaces: old }) });
      byId.set(route.id, value);
      if (old === undefined) appended.push(value);
      else replaced.set(old, value);
    }
    const index = this.settleIndex();
    this.index = undefined;
    index.update(removed, added);
    // A pointer scan per changed route, not a lookup per route: this runs for every change message.
    const routes = this.routes.slice();
    for (const [old, next] of replaced) {
      const at = routes.indexOf(old);
      if (at === -1) continue;
      if (next === undefined) routes.splice(at, 1);
      else routes[at] = next;
    }
    routes.push(...appended);
    const table = new RouteTable(routes, index, byId, changes.config, against, new Date());
    return { table, diff, compiled: added.length, retargeted: 0 };
  }

  match(method: string, path: string): CompiledRoute | undefined {
    return (this.index ?? this.settleIndex()).match(method, path)?.value;
  }

  /**
   * The upstream pools this table sends to: the pool of each route that resolved its upstream
   * target (a route that has had no request has none yet), and for a route naming an upstream, the
   * pool of every endpoint of its group (the balanced path dials those), so a prune never closes
   * the warm connections of balanced traffic.
   */
  poolsInUse(): Set<UpstreamPool> {
    return runToEnd(this.poolsInUseSteps(Number.POSITIVE_INFINITY));
  }

  /** The same, `chunk` routes a step (a reload's release: one pass over 10,000 routes was up to 12 ms on a busy machine). */
  *poolsInUseSteps(chunk: number): Generator<void, Set<UpstreamPool>, void> {
    const pools = new Set<UpstreamPool>();
    for (let i = 0; i < this.routes.length; i += 1) {
      const route = this.routes[i] as TableRoute;
      const pool = route.poolInUse;
      if (pool !== undefined) {
        pools.add(pool);
        const balanced = route.balanced;
        const group = balanced?.registry.group(balanced.name);
        if (balanced !== undefined && group !== undefined) {
          for (const endpoint of group.endpoints) pools.add(endpoint.dialFor(route.upstream, balanced.pools).pool);
        }
      }
      if ((i + 1) % chunk === 0) yield;
    }
    return pools;
  }
}

/**
 * Builds one enabled route against a configuration's environment: its pattern, upstream TLS and
 * load-time policy state now, its pipeline and upstream target at its first request (TableRoute,
 * RoutePipelines).
 */
function routeCompiler(config: ProxyConfig, inputs: TableInputs, tls: UpstreamTlsResolver): (route: Route, fingerprint: string | undefined) => TableRoute {
  const { pools, registry } = inputs;
  const build = { pipelines: new RoutePipelines(sortFactories(inputs.factories, 'route'), upstreamEnvironment(config, inputs.baseEnv, tls), forward), pools };
  return (route, fingerprint) => {
    build.pipelines.prepare(route);
    const balanced = route.upstreamName === undefined || registry === undefined ? undefined : { name: route.upstreamName, registry, pools };
    return new TableRoute(route, compilePathPattern(route.path), tls.forRoute(route), balanced, fingerprint, build);
  };
}

/** Where `value` is in `list` at or after `from` (compared by identity), or -1. */
function indexOfFrom<T>(list: readonly T[], value: T, from: number): number {
  for (let i = from; i < list.length; i += 1) if (list[i] === value) return i;
  return -1;
}

function compiledAgainst(config: ProxyConfig, inputs: TableInputs): CompiledAgainst {
  return { settings: inputs.baseEnv.settings, upstreams: config.upstreams, authentication: config.authentication, extra: inputs.extra };
}

function sameInputs(a: CompiledAgainst, b: CompiledAgainst): boolean {
  return a.extra === b.extra && deepEqual(a.settings, b.settings) && deepEqual(a.upstreams, b.upstreams) && deepEqual(a.authentication, b.authentication);
}

/**
 * The environment policies see for one configuration: its settings, its upstreams by name and their
 * TLS settings (`tls`: the resolver routes compile with, so a CA file is read once per load).
 */
export function upstreamEnvironment(
  config: ProxyConfig,
  env: BaseEnvironment,
  tls = new UpstreamTlsResolver(config, env.services.logger, env.services.upstreamCaFiles),
): PolicyEnvironment {
  return { ...env, upstreams: new Map(config.upstreams.map((u) => [u.name, u])), upstreamTls: tls };
}
