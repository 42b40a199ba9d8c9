import type { FieldError, ProxyConfig, Route } from '@gateway/route-model';
import { ENFORCEABLE_ROUTE_FIELDS, type PolicyFactory } from './policy';

const NOT_ENFORCED = 'NOT_SUPPORTED';

function notEnforced(field: string, what: string): FieldError {
  return {
    field,
    code: NOT_ENFORCED,
    message: `${what} is not enforced by this version of the data plane yet; remove it or set enabled: false`,
  };
}

function isOn(block: unknown): boolean {
  return typeof block === 'object' && block !== null && (block as { enabled?: unknown }).enabled !== false;
}

/**
 * Every part of a valid configuration that this data plane would silently ignore. The route model
 * accepts the whole spec so the API and config files are stable, but a gateway that accepted an
 * `auth` block and proxied the route unauthenticated would be worse than one that refuses to load.
 * `retry` is exempt: the route model fills it by default (decision 16) and ignoring it only costs
 * retries, never protection.
 */
export function unenforcedConfigErrors(config: ProxyConfig, factories: readonly PolicyFactory[]): FieldError[] {
  const enforced = new Set(factories.map((f) => f.configures).filter((c) => c !== undefined));
  const errors: FieldError[] = [];
  config.routes.forEach((route: Route, index) => {
    for (const field of ENFORCEABLE_ROUTE_FIELDS) {
      if (field === 'retry' || enforced.has(field)) continue;
      const block = route[field];
      // headers and transform have no `enabled` flag: present means wanted.
      if (block !== undefined && isOn(block)) errors.push(notEnforced(`routes[${index}].${field}`, `routes[${index}].${field}`));
    }
    // The UI lists these types (spec 2.1) but no verifier exists for them: refused, never served open.
    const authType = route.auth?.type;
    if (isOn(route.auth) && (authType === 'oauth2' || authType === 'custom')) {
      errors.push(notEnforced(`routes[${index}].auth.type`, `auth.type '${authType}' (routes[${index}].auth.type)`));
    }
  });
  config.upstreams.forEach((upstream, index) => {
    if (enforced.has('circuitBreaker') && enforced.has('healthCheck')) return;
    if (!enforced.has('circuitBreaker') && isOn(upstream.circuitBreaker)) errors.push(notEnforced(`upstreams[${index}].circuitBreaker`, 'An upstream circuit breaker'));
    if (!enforced.has('healthCheck') && isOn(upstream.healthCheck)) errors.push(notEnforced(`upstreams[${index}].healthCheck`, 'An upstream health check'));
  });
  if (!enforced.has('auth') && isOn(config.authentication)) errors.push(notEnforced('authentication', 'Gateway authentication'));
  return errors;
}
