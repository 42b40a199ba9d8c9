import type { OutgoingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { FieldError, PolicyRouteField, ProxyConfig, ProxySettings, Route, SessionAuthenticationConfig, UpstreamDefinition } from '@gateway/route-model';
import type { GatewayErrorCode } from './error-catalogue';
import type { Exchange } from './exchange';
import type { CounterDefinition, EngineServices } from './ports';
import type { ServiceKey } from './service-registry';
import type { UpstreamAttemptCallback, UpstreamResponse } from './upstream-response';
import type { UpstreamTlsResolver } from './upstream-tls';

/**
 * A reply the gateway writes itself instead of proxying: either a catalogued error or a full
 * response (a cache hit, a configured fallback).
 */
export type LocalReply =
  | { kind: 'error'; code: GatewayErrorCode; retryAfter?: number; headers?: Record<string, string> }
  | {
      kind: 'response';
      status: number;
      headers?: OutgoingHttpHeaders;
      body?: string | Buffer;
      /**
       * Run the route's response phase on this reply as if it came from the upstream (a cache hit
       * replays a stored upstream response: header rules and body transforms still apply).
       */
      replay?: boolean;
    };

export type RequestHookResult = LocalReply | undefined;

/** The upstream's answer as it is about to be written; response hooks may change any part. */
export interface ProxiedResponse {
  status: number;
  headers: OutgoingHttpHeaders;
  /** A stream, or a complete body (a hook that buffered it, a replayed cache entry). */
  body: Readable | Buffer;
  /** The upstream's response (read-only use: `complete`, trailers, httpVersion); undefined for a replayed local reply. */
  readonly upstream: UpstreamResponse | undefined;
}

/**
 * What a response hook that only removes and sets header fields does, declared (the headers
 * policy). When it is the only response work of a route, the dispatcher applies it to the
 * upstream's raw head as it writes it (writeUpstreamResponseHead), without building a header map,
 * a response object and node's object form of the head: ~4.7k instructions a request on the policy
 * set's route under callgrind (docs/data-plane.md, issue 19, branch h-pp2). The
 * policy's `onResponse` must do the same to a header map: replayed responses (cache hits) and
 * routes with other response hooks still take that path.
 */
export interface ResponseHeadRules {
  /** Lower-case names the rules remove or set: the upstream's fields of these names are left out. */
  readonly names: ReadonlySet<string>;
  /** Bit n set when some name is n characters long (n & 31): other names are not lower-cased to be looked up. */
  readonly lengths: number;
  /** The fields set, in order: lower-case name (unique) and its value for this exchange. */
  readonly set: ReadonlyArray<readonly [string, (exchange: Exchange) => string]>;
}

/** Called once per upstream call: with an error, or with the response once its head arrived. */
export type UpstreamCallback = UpstreamAttemptCallback;

/**
 * Calls the upstream for one exchange. Callback-shaped rather than a promise: it runs on every
 * request, and a promise per wrapper would cost a microtask hop each.
 */
export type UpstreamCall = (exchange: Exchange, done: UpstreamCallback) => void;

/**
 * What a policy contributes to a route's pipeline. Every hook is optional; a policy uses the
 * phases it needs (see PHASES). Hooks must not read raw config: everything they need was
 * computed in `create()` when the route loaded.
 */
export interface Policy {
  /** `request` phase: return a reply to end the exchange, or undefined to go on. */
  onRequest?(exchange: Exchange): RequestHookResult | Promise<RequestHookResult>;
  /** `upstream` phase: wrap the call (lower `order` wraps outer). */
  wrapUpstream?(next: UpstreamCall): UpstreamCall;
  /** `response` phase: adjust the response before its head is written. */
  onResponse?(exchange: Exchange, response: ProxiedResponse): void | Promise<void>;
  /** What `onResponse` does, declared, when it only removes and sets header fields (see ResponseHeadRules). */
  readonly responseHead?: ResponseHeadRules;
  /** `complete` phase: the response finished or the client left; must not throw. */
  onComplete?(exchange: Exchange): void;
}

/** What a policy's factory sees when a route table is compiled. */
export interface PolicyEnvironment {
  readonly settings: ProxySettings;
  readonly services: EngineServices;
  /** The `proxy.yml` upstreams by name (upstream-level breakers and health checks). */
  readonly upstreams: ReadonlyMap<string, UpstreamDefinition>;
  /**
   * The TLS settings this load uses for https connections to an upstream (by name; undefined for a
   * route's own URL): a policy that connects to an upstream itself (health checks) uses exactly these.
   */
  readonly upstreamTls: Pick<UpstreamTlsResolver, 'forUpstream'>;
  /** The configuration's top-level `authentication` block (spec 2.6), when it has one. */
  readonly authentication?: SessionAuthenticationConfig;
}

/**
 * One concern of the data plane: a folder under `src/policies/` exporting one of these.
 * `create` returns null when the route does not use the concern, so an unused policy costs nothing
 * per request. Long-lived state (buckets, breakers) must be keyed by route id, not held by the
 * returned object alone, so it survives a reload.
 */
export interface PolicyFactory {
  readonly key: string;
  /**
   * `gateway`: runs for every request before route matching (ops endpoints and unmatched
   * requests included) and `create` gets no route; `route`: compiled into each route's pipeline.
   */
  readonly scope: 'gateway' | 'route';
  /** Position in every phase, ascending; also the wrapping order of upstream wrappers. */
  readonly order: number;
  /**
   * The route field this policy enforces. A route that configures a field no registered policy
   * enforces is refused when it loads (see unenforced-config.ts): a gateway must never accept an
   * `auth` or `rateLimit` block and then serve the route unprotected.
   */
  readonly configures?: PolicyRouteField;
  /**
   * The services this policy resolves from `env.services.provided` (its folder declares the keys;
   * start.ts provides them and refuses to boot when one is missing). Optional services (resolved
   * with `find`) are not listed.
   */
  readonly services?: readonly ServiceKey<unknown>[];
  /** Counters this policy increments; registered at boot so they are scraped before their first use. */
  readonly metrics?: readonly CounterDefinition[];
  /**
   * Parts of a valid configuration this policy cannot honour (an auth type without a verifier):
   * the configuration is refused with these errors rather than served unprotected.
   */
  unsupported?(config: ProxyConfig): FieldError[];
  create(route: Route | undefined, env: PolicyEnvironment): Policy | null;
  /**
   * A route's pipeline is compiled at its first request, not when it loads (docs/data-plane.md,
   * "Memory, start-up and /metrics at 10,000 routes"). What must exist from load on, before any
   * request (a breaker: its gauge, a hold set through the control plane; a health check's probes),
   * is created here, once per route definition that loads. `create` must still find or make the
   * same state (it may run for a route that loaded before a restart of this state). Must not throw.
   */
  prepare?(route: Route, env: PolicyEnvironment): void;
  /**
   * Routes of one table whose keys are equal share the one policy `create` made for the first of
   * them (and, when every policy of two routes is shared, their whole pipeline). The key covers
   * everything of the route `create` reads; a policy that keeps or binds anything of one route (its
   * id, its own state) has no key. Without it, each route gets its own policy.
   */
  shareKey?(route: Route): string;
  /**
   * Called once a configuration is live: release long-lived state (breakers, health-check timers)
   * of routes and upstreams it no longer has. A generator that yields every few hundred routes or
   * entries (eachInChunks of time-slices.ts), so a table of 10,000 routes is walked in slices of
   * the event loop, never in one step. The engine abandons it (`return()`) when the live table
   * changes or a new one starts to build between two steps, so a step may rely on `config` being
   * live; the next release walks again. Must not throw.
   */
  retain?(config: ProxyConfig, env: PolicyEnvironment): Generator<void, void, void>;
  /**
   * The same release told what went away, so it touches only that: called instead of `retain`
   * when only routes were removed or changed since the last release (the upstreams, their TLS
   * and the table's environment unchanged). A full reload of 10,000 routes with two edited made
   * every `retain` walk all 10,000 (docs/data-plane.md, "The policies' release told what went
   * away"). Must release what the gone routes alone held and keep what the live routes hold,
   * leaving nothing a walk with `retain(config, env)` would then drop. State shared by routes (an
   * upstream's breaker) that a gone route used and its successor does not: a policy that counts
   * its users releases it with the last one (the telemetry tallies count compiled routes, so an
   * upstream's tally may go while a route not yet compiled names it; its first request makes it
   * again), otherwise it walks with its own `retain`. Stepped and abandoned like `retain`; the
   * engine calls `retain` for a factory that has no `release`. Must not throw.
   */
  release?(left: ReleasedRoutes, config: ProxyConfig, env: PolicyEnvironment): Generator<void, void, void>;
}

/** What left the live configuration since the last release (see PolicyFactory.release). */
export interface ReleasedRoutes {
  /**
   * Definitions no longer served: removed routes and the previous versions of changed ones, of
   * every swap since the last release, oldest first (an id may appear more than once).
   */
  readonly gone: readonly Route[];
  /** The live configuration's route (enabled or not) with the id of a gone route; undefined when it has none. */
  current(id: string): Route | undefined;
  /** The same when it is enabled; undefined otherwise (a disabled route never loads, so it holds no state). */
  live(id: string): Route | undefined;
}
