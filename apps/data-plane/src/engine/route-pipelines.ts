import type { Route } from '@gateway/route-model';
import type { CompleteHook, RequestHook, ResponseHook } from './compiled-route';
import { pipelineOf, type CompiledPipeline } from './pipeline';
import type { Policy, PolicyEnvironment, PolicyFactory, UpstreamCall } from './policy';

/** Separates a factory's key from its share key, and one factory's part of a pipeline key from the next. */
const KEY_SEPARATOR = '\u0000';
const PART_SEPARATOR = '\u0001';

/**
 * The route pipelines of one environment (a table build: its settings, upstreams, authentication),
 * compiled when a route is first asked for them, and shared: routes whose policies have equal share
 * keys (PolicyFactory.shareKey) get the same policy objects, and routes whose every policy is shared
 * get the same pipeline. At 10,000 routes most routes carry only the default policies (body-size
 * limit, retry, timeout): they hold one pipeline between them instead of one each.
 *
 * Holds the environment and the shared objects only, never the table's configuration, so a route
 * kept across reloads without being called does not keep an old configuration alive.
 */
export class RoutePipelines {
  private readonly policies = new Map<string, Policy | null>();
  private readonly pipelines = new Map<string, CompiledPipeline>();
  /** Upstream calls folded over shared wrappers only, by their keys from the innermost out. */
  private readonly folds = new Map<string, UpstreamCall>();
  private readonly hooks = new Map<string, BoundHooks>();

  constructor(
    /** Route-scope factories in phase order. */
    private readonly factories: readonly PolicyFactory[],
    private readonly env: PolicyEnvironment,
    private readonly forward: UpstreamCall,
  ) {}

  /** What a route needs from load on, before its first request (PolicyFactory.prepare). */
  prepare(route: Route): void {
    for (const factory of this.factories) factory.prepare?.(route, this.env);
  }

  /**
   * The route's pipeline. A factory that throws (a bug: routes reach here validated) costs the
   * route, never the process or its policies: every request of the route then fails with 500,
   * and the failure is logged once.
   */
  compile(route: Route): CompiledPipeline {
    try {
      return this.build(route);
    } catch (error) {
      this.env.services.logger.error({ routeId: route.id, err: String(error) }, 'route pipeline failed to compile; the route answers 500');
      return failingPipeline(error);
    }
  }

  private build(route: Route): CompiledPipeline {
    const policies: Policy[] = [];
    /** Per policy, its share key; undefined for a route's own policy. */
    const keys: Array<string | undefined> = [];
    let key = '';
    let shared = true;
    for (const factory of this.factories) {
      let policy: Policy | null | undefined;
      let part: string | undefined;
      if (factory.shareKey === undefined) {
        policy = factory.create(route, this.env);
        if (policy !== null) shared = false;
      } else {
        part = factory.key + KEY_SEPARATOR + factory.shareKey(route);
        policy = this.policies.get(part);
        if (policy === undefined) {
          policy = factory.create(route, this.env);
          this.policies.set(part, policy);
        }
        key += part + PART_SEPARATOR;
      }
      if (policy !== null) {
        policies.push(policy);
        keys.push(part);
      }
    }
    if (!shared) return this.assemble(policies, keys);
    let pipeline = this.pipelines.get(key);
    if (pipeline === undefined) {
      pipeline = this.assemble(policies, keys);
      this.pipelines.set(key, pipeline);
    }
    return pipeline;
  }

  /**
   * assemblePipeline, with what shared policies contribute made once: their bound hooks, and the
   * upstream call folded from `forward` out to the first wrapper of a route's own policy (the
   * timeout and retry wrappers of most routes are the same two closures).
   */
  private assemble(policies: readonly Policy[], keys: ReadonlyArray<string | undefined>): CompiledPipeline {
    const onRequest: RequestHook[] = [];
    const onResponse: ResponseHook[] = [];
    const onComplete: CompleteHook[] = [];
    for (let i = 0; i < policies.length; i += 1) {
      const hooks = this.hooksOf(policies[i] as Policy, keys[i]);
      if (hooks.onRequest) onRequest.push(hooks.onRequest);
      if (hooks.onResponse) onResponse.push(hooks.onResponse);
      if (hooks.onComplete) onComplete.push(hooks.onComplete);
    }
    let callUpstream = this.forward;
    let foldKey: string | undefined = '';
    for (let i = policies.length - 1; i >= 0; i -= 1) {
      const policy = policies[i] as Policy;
      if (!policy.wrapUpstream) continue;
      const key = keys[i];
      foldKey = foldKey === undefined || key === undefined ? undefined : key + PART_SEPARATOR + foldKey;
      const folded = foldKey === undefined ? undefined : this.folds.get(foldKey);
      if (folded !== undefined) {
        callUpstream = folded;
        continue;
      }
      callUpstream = policy.wrapUpstream(callUpstream);
      if (foldKey !== undefined) this.folds.set(foldKey, callUpstream);
    }
    return pipelineOf(policies, { onRequest, onResponse, onComplete }, callUpstream);
  }

  /** A policy's hooks bound to it; once per shared policy. */
  private hooksOf(policy: Policy, key: string | undefined): BoundHooks {
    const known = key === undefined ? undefined : this.hooks.get(key);
    if (known !== undefined) return known;
    const hooks: BoundHooks = {
      onRequest: policy.onRequest?.bind(policy),
      onResponse: policy.onResponse?.bind(policy),
      onComplete: policy.onComplete?.bind(policy),
    };
    if (key !== undefined) this.hooks.set(key, hooks);
    return hooks;
  }
}

interface BoundHooks {
  readonly onRequest: RequestHook | undefined;
  readonly onResponse: ResponseHook | undefined;
  readonly onComplete: CompleteHook | undefined;
}

/** Fails every request with `error` (the dispatcher answers 500): never forwards without the route's policies. */
function failingPipeline(error: unknown): CompiledPipeline {
  const fail = (): never => {
    throw error;
  };
  return { policies: [], onRequest: [fail], onResponse: null, onComplete: null, callUpstream: fail, responseHead: null };
}
