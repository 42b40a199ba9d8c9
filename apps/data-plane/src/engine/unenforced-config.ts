import {
  CONFIG_POLICY_FIELDS,
  DEFAULTED_POLICY_FIELDS,
  POLICY_ROUTE_FIELDS,
  UPSTREAM_POLICY_FIELDS,
  type FieldError,
  type PolicyRouteField,
  type ProxyConfig,
  type Route,
} from '@gateway/route-model';
import type { PolicyFactory } from './policy';

const NOT_ENFORCED = 'NOT_SUPPORTED';

export function notEnforced(field: string, what: string): FieldError {
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
 * Which fields need a policy is data of the route model (POLICY_ROUTE_FIELDS); what a registered
 * policy still cannot honour (an auth type without a verifier) the policy says in `unsupported`.
 */
export function unenforcedConfigErrors(config: ProxyConfig, factories: readonly PolicyFactory[]): FieldError[] {
  const enforced = new Set<PolicyRouteField>();
  for (const factory of factories) if (factory.configures !== undefined) enforced.add(factory.configures);
  const refused = POLICY_ROUTE_FIELDS.filter((field) => !enforced.has(field) && !DEFAULTED_POLICY_FIELDS.includes(field));
  const errors: FieldError[] = [];
  config.routes.forEach((route: Route, index) => {
    for (const field of refused) {
      // headers and transform have no `enabled` flag: present means wanted.
      if (route[field] !== undefined && isOn(route[field])) errors.push(notEnforced(`routes[${index}].${field}`, `routes[${index}].${field}`));
    }
  });
  config.upstreams.forEach((upstream, index) => {
    for (const field of UPSTREAM_POLICY_FIELDS) {
      if (!enforced.has(field) && isOn(upstream[field])) errors.push(notEnforced(`upstreams[${index}].${field}`, `upstreams[${index}].${field}`));
    }
  });
  for (const [block, field] of Object.entries(CONFIG_POLICY_FIELDS)) {
    if (!enforced.has(field) && isOn(config[block as keyof typeof CONFIG_POLICY_FIELDS])) errors.push(notEnforced(block, block));
  }
  for (const factory of factories) errors.push(...(factory.unsupported?.(config) ?? []));
  return errors;
}
