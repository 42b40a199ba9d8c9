import type { Route } from '@gateway/route-model';
import type { CompiledHooks, CompleteHook, RequestHook, ResponseHook } from './compiled-route';
import type { Policy, PolicyEnvironment, PolicyFactory, ResponseHeadRules, UpstreamCall } from './policy';

export interface CompiledPipeline extends CompiledHooks {
  readonly policies: readonly Policy[];
  readonly callUpstream: UpstreamCall;
  readonly responseHead: ResponseHeadRules | null;
}

/** The declared header rules of the one policy with a response hook; null when none or several have one, or it declares none. */
function onlyResponseHead(policies: readonly Policy[]): ResponseHeadRules | null {
  let found: ResponseHeadRules | null = null;
  let hooks = 0;
  for (const policy of policies) {
    if (policy.onResponse === undefined) continue;
    hooks += 1;
    found = policy.responseHead ?? null;
  }
  return hooks === 1 ? found : null;
}

/** The factories of one scope, in phase order. */
export function sortFactories(factories: readonly PolicyFactory[], scope: PolicyFactory['scope']): PolicyFactory[] {
  return factories.filter((f) => f.scope === scope).sort((a, b) => a.order - b.order);
}

/**
 * Builds a pipeline once, when routes load: each factory decides whether the route uses its
 * concern, hooks are bound and grouped per phase (null for an empty phase, so the hot path skips
 * it), and upstream wrappers are folded around `forward` with the lowest order outermost.
 */
export function compilePipeline(
  factories: readonly PolicyFactory[],
  route: Route | undefined,
  env: PolicyEnvironment,
  forward: UpstreamCall,
): CompiledPipeline {
  const policies: Policy[] = [];
  for (const factory of factories) {
    const policy = factory.create(route, env);
    if (policy !== null) policies.push(policy);
  }
  const onRequest: RequestHook[] = [];
  const onResponse: ResponseHook[] = [];
  const onComplete: CompleteHook[] = [];
  for (const policy of policies) {
    if (policy.onRequest) onRequest.push(policy.onRequest.bind(policy));
    if (policy.onResponse) onResponse.push(policy.onResponse.bind(policy));
    if (policy.onComplete) onComplete.push(policy.onComplete.bind(policy));
  }
  let callUpstream = forward;
  for (let i = policies.length - 1; i >= 0; i -= 1) {
    const wrap = (policies[i] as Policy).wrapUpstream;
    if (wrap) callUpstream = wrap.call(policies[i], callUpstream);
  }
  return pipelineOf(policies, { onRequest, onResponse, onComplete }, callUpstream);
}

/** A pipeline of these hooks, null for a phase without any (the hot path skips it). */
export function pipelineOf(
  policies: readonly Policy[],
  hooks: { onRequest: RequestHook[]; onResponse: ResponseHook[]; onComplete: CompleteHook[] },
  callUpstream: UpstreamCall,
): CompiledPipeline {
  return {
    policies,
    onRequest: hooks.onRequest.length > 0 ? hooks.onRequest : null,
    onResponse: hooks.onResponse.length > 0 ? hooks.onResponse : null,
    onComplete: hooks.onComplete.length > 0 ? hooks.onComplete : null,
    callUpstream,
    responseHead: onlyResponseHead(policies),
  };
}
