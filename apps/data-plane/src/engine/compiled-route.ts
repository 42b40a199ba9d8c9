import type { CompiledPathPattern, Route } from '@gateway/route-model';
import type { Exchange } from './exchange';
import type { Policy, ProxiedResponse, RequestHookResult, ResponseHeadRules, UpstreamCall } from './policy';
import type { UpstreamPools, UpstreamTarget } from './upstream-target';
import type { UpstreamRegistry } from './upstreams/upstream-registry';

export type RequestHook = (exchange: Exchange) => RequestHookResult | Promise<RequestHookResult>;
export type ResponseHook = (exchange: Exchange, response: ProxiedResponse) => void | Promise<void>;
export type CompleteHook = (exchange: Exchange) => void;

/** The hooks of one pipeline, per phase, in order; null where a phase has none (skipped for free). */
export interface CompiledHooks {
  readonly onRequest: readonly RequestHook[] | null;
  readonly onResponse: readonly ResponseHook[] | null;
  readonly onComplete: readonly CompleteHook[] | null;
}

/** A route with everything the hot path needs precomputed. Immutable once built. */
export interface CompiledRoute extends CompiledHooks {
  readonly route: Route;
  readonly id: string;
  readonly pattern: CompiledPathPattern;
  /** The URL's target; for a route naming an upstream, its first target (used when the registry lacks it). */
  readonly upstream: UpstreamTarget;
  /** Set when the route names an upstream: a target is chosen per attempt from the registry's group of that name. */
  readonly balanced: { readonly name: string; readonly registry: UpstreamRegistry; readonly pools: UpstreamPools } | undefined;
  /** The folded upstream phase: outer wrappers first, forward innermost. */
  readonly callUpstream: UpstreamCall;
  readonly policies: readonly Policy[];
  /**
   * Set when the route's only response hook is a policy's declared header rules: an upstream
   * response's head is written from its raw list with them, the hook is not run (null otherwise).
   */
  readonly responseHead?: ResponseHeadRules | null;
  /** Identifies the route's definition when its loader made one (proxy.yml): a reload compares these, not the routes. */
  readonly fingerprint?: string;
}
