/**
 * Route fields whose behaviour a data-plane policy provides (the policy names its field in
 * `configures`). A data plane refuses a configuration that turns on one of these when none of its
 * policies enforces it: accepting an `auth` block and serving the route open would be worse than
 * not loading. The data plane's engine reads this list instead of naming policies itself.
 */
export const POLICY_ROUTE_FIELDS = ['timeout', 'rateLimit', 'headers', 'healthCheck', 'retry', 'circuitBreaker', 'transform', 'cache', 'auth', 'ipRestriction', 'cors'] as const;
export type PolicyRouteField = (typeof POLICY_ROUTE_FIELDS)[number];

/**
 * Policy fields the route model fills by default (decision 16): ignoring them only costs retries,
 * never protection, so they are not refused.
 */
export const DEFAULTED_POLICY_FIELDS: readonly PolicyRouteField[] = ['retry'];

/** Upstream blocks enforced by the policy of the route field with the same name. */
export const UPSTREAM_POLICY_FIELDS = ['circuitBreaker', 'healthCheck'] as const satisfies readonly PolicyRouteField[];

/** Top-level configuration blocks and the route field whose policy enforces them. */
export const CONFIG_POLICY_FIELDS = { authentication: 'auth' } as const satisfies Record<string, PolicyRouteField>;
