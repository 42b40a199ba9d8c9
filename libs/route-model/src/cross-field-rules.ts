import type { FieldError, HealthCheckConfig, Route } from './route.types';
import type { Loose } from './loose';
import { ROUTE_MODEL_ERROR_CODES } from './error-codes';
import { joinFieldPath } from './field-path';

/** A rule over several fields: `field` is where the error is reported, `check` returns its message. */
export interface CrossFieldRule<T> {
  readonly field: string;
  readonly check: (value: Loose<T>) => string | undefined;
}

export function healthCheckTimingRule<T>(field: string, pick: (value: Loose<T>) => Loose<HealthCheckConfig> | undefined): CrossFieldRule<T> {
  return {
    field: `${field}.timeout`,
    check: (value) => {
      const hc = pick(value);
      // A probe that may outlast the interval would overlap the next one.
      return hc?.timeout !== undefined && hc.interval !== undefined && hc.timeout > hc.interval ? `${field}.timeout must not exceed ${field}.interval` : undefined;
    },
  };
}

/** Entries one route's list may hold (the lists are compiled into sets when routes load). */
export const MAX_ACCESS_LIST_ENTRIES = 1000;

function listBoundRule(field: string, pick: (route: Loose<Route>) => readonly unknown[] | undefined): CrossFieldRule<Route> {
  return {
    field,
    check: (route) => ((pick(route)?.length ?? 0) > MAX_ACCESS_LIST_ENTRIES ? `${field} may hold at most ${MAX_ACCESS_LIST_ENTRIES} entries` : undefined),
  };
}

/** Route rules that one field's row cannot express (Kong's `entity_checks`). */
export const ROUTE_RULES: ReadonlyArray<CrossFieldRule<Route>> = [
  {
    field: 'auth.jwt.secretEnv',
    check: ({ auth }) => (auth !== undefined && auth.enabled !== false && auth.type === 'jwt' && auth.jwt?.secretEnv === undefined ? 'auth.jwt.secretEnv is required when auth.type is jwt' : undefined),
  },
  {
    field: 'auth.jwt.issuer',
    check: ({ auth }) => (auth?.jwt?.validateIssuer === true && auth.jwt.issuer === undefined ? 'auth.jwt.issuer is required when auth.jwt.validateIssuer is true' : undefined),
  },
  {
    field: 'auth.basic.users',
    check: ({ auth }) => (auth !== undefined && auth.enabled !== false && auth.type === 'basic' && auth.basic?.users === undefined ? 'auth.basic.users is required when auth.type is basic' : undefined),
  },
  healthCheckTimingRule<Route>('healthCheck', (route) => route.healthCheck),
  {
    // With only `enabled`, the block would look like protection and allow everything.
    field: 'ipRestriction',
    check: ({ ipRestriction: r }) =>
      r !== undefined && r.enabled !== false && (r.allow?.length ?? 0) === 0 && (r.deny?.length ?? 0) === 0 ? 'ipRestriction needs at least one address in allow or deny' : undefined,
  },
  listBoundRule('ipRestriction.allow', ({ ipRestriction }) => ipRestriction?.allow),
  listBoundRule('ipRestriction.deny', ({ ipRestriction }) => ipRestriction?.deny),
  listBoundRule('cors.origins', ({ cors }) => cors?.origins),
  {
    // Fetch standard: a credentialed response must name the origin; browsers reject `*` with credentials.
    field: 'cors.credentials',
    check: ({ cors }) => (cors?.credentials === true && cors.origins?.includes('*') === true ? 'cors.credentials cannot be true when cors.origins contains *; list the origins instead' : undefined),
  },
  {
    field: 'retry.maxDelay',
    check: ({ retry }) =>
      retry?.maxDelay !== undefined && retry.initialDelay !== undefined && retry.maxDelay < retry.initialDelay ? 'retry.maxDelay must be at least retry.initialDelay' : undefined,
  },
];

/**
 * The rules' errors, minus those on a field (or a parent or child of it) that already has an
 * error: one problem is reported once.
 */
export function crossFieldErrors<T>(rules: ReadonlyArray<CrossFieldRule<T>>, value: Loose<T>, prefix: string, existing: readonly FieldError[]): FieldError[] {
  const out: FieldError[] = [];
  for (const rule of rules) {
    const message = rule.check(value);
    if (message === undefined) continue;
    const field = joinFieldPath(prefix, rule.field);
    if (existing.some((e) => related(e.field, field))) continue;
    out.push({ field, message, code: ROUTE_MODEL_ERROR_CODES.VALIDATION_ERROR });
  }
  return out;
}

function related(a: string, b: string): boolean {
  return a === b || isUnder(a, b) || isUnder(b, a);
}

function isUnder(child: string, parent: string): boolean {
  return child.startsWith(parent) && (child[parent.length] === '.' || child[parent.length] === '[');
}
