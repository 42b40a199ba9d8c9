import type { ApiKeyDigest, BreakerHold, RouteSnapshot } from '@gateway/events';
import {
  CONFIG_SCHEMA_VERSION,
  deepEqual,
  PROXY_DEFAULTS,
  validateProxyConfig,
  validateRoute,
  type FieldError,
  type ProxyConfig,
  type ProxySettings,
  type Route,
  type SessionAuthenticationConfig,
  type UpstreamDefinition,
} from '@gateway/route-model';
import type { PolicyFactory } from '../engine/policy';
import { unenforcedConfigErrors } from '../engine/unenforced-config';
import type { ApiKeySet } from '../engine/persisted-snapshot';
import { readApiKeySet } from './snapshot-api-keys';

/** A route left out of the table, and why. */
export interface SkippedRoute {
  routeId: string;
  errors: FieldError[];
}

export interface ServableConfig {
  config: ProxyConfig;
  /** Routes the data plane will not serve: invalid, or asking for a policy it does not enforce. */
  skipped: SkippedRoute[];
  /** Problems outside routes (upstream blocks, authentication, API keys): dropped, the routes still served. */
  ignored: FieldError[];
  /** The control plane's active API keys (the whole set: a key absent here is refused). */
  apiKeys: ApiKeySet;
}

/**
 * Why this data plane must not serve a route the control plane sent, or [] when it may. The route
 * model's own validation first (the control plane may run another version), then every block no
 * policy of this data plane enforces: a route asking for `auth` must not be served open.
 */
export function routeRefusals(route: Route, factories: readonly PolicyFactory[]): FieldError[] {
  const errors = validateRoute(route);
  if (errors.length > 0) return errors;
  const probe: ProxyConfig = { version: CONFIG_SCHEMA_VERSION, proxy: { ...PROXY_DEFAULTS, trustedProxies: [] }, upstreams: [], routes: [route] };
  return unenforcedConfigErrors(probe, factories).map((e) => ({ ...e, field: e.field.replace(/^routes\[0\]\.?/, '') || '(route)' }));
}

function routeIdOf(route: unknown, index: number): string {
  const id = typeof route === 'object' && route !== null ? (route as { id?: unknown }).id : undefined;
  return typeof id === 'string' ? id : `routes[${index}]`;
}

type ServableSource = { routes: readonly unknown[]; upstreams: readonly unknown[]; authentication?: unknown; apiKeys?: unknown; apiKeySecretFingerprint?: unknown };

/**
 * The configuration a data plane serves from a control plane's routes: the local proxy settings,
 * the enabled routes that are valid and enforceable (each bad one skipped, never the whole set),
 * and the upstreams and authentication block when they validate. In steps of one route, so a
 * snapshot of 10,000 routes is checked while traffic flows (runInSlices). A route equal to one of
 * `served` (the routes being served, already checked) is not checked again, and its served object
 * is kept, so compiling the table finds it unchanged by identity.
 */
export function* servableConfigSteps(
  source: ServableSource,
  settings: ProxySettings,
  factories: readonly PolicyFactory[],
  served: readonly Route[],
): Generator<void, ServableConfig, void> {
  const known = new Map<string, Route>();
  for (const route of served) {
    known.set(route.id, route);
    yield;
  }
  const skipped: SkippedRoute[] = [];
  const routes: Route[] = [];
  const seen = new Set<string>();
  for (let index = 0; index < source.routes.length; index += 1) {
    yield;
    const candidate = source.routes[index];
    const routeId = routeIdOf(candidate, index);
    if (typeof candidate !== 'object' || candidate === null || Array.isArray(candidate)) {
      skipped.push({ routeId, errors: [{ field: `routes[${index}]`, code: 'VALIDATION_ERROR', message: 'route must be an object' }] });
      continue;
    }
    let route = candidate as Route;
    if (route.enabled !== true) continue;
    const before = known.get(route.id);
    if (before !== undefined && deepEqual(before, route)) route = before;
    else {
      const errors = routeRefusals(route, factories);
      if (errors.length > 0) {
        skipped.push({ routeId, errors });
        continue;
      }
    }
    if (seen.has(route.id)) {
      skipped.push({ routeId, errors: [{ field: 'id', code: 'VALIDATION_ERROR', message: `Duplicate route id '${route.id}'` }] });
      continue;
    }
    seen.add(route.id);
    routes.push(route);
  }

  const ignored: FieldError[] = [];
  let upstreams: UpstreamDefinition[] = [];
  let authentication: SessionAuthenticationConfig | undefined;
  const rest = validateProxyConfig({
    version: CONFIG_SCHEMA_VERSION,
    upstreams: source.upstreams,
    ...(source.authentication === undefined ? {} : { authentication: source.authentication }),
  });
  if (rest.ok) {
    upstreams = rest.value.upstreams;
    authentication = rest.value.authentication;
    ignored.push(...unenforcedConfigErrors({ ...rest.value, proxy: { ...settings, trustedProxies: [] } }, factories));
  } else {
    ignored.push(...rest.errors);
  }
  const keys = readApiKeySet(source.apiKeys, source.apiKeySecretFingerprint);
  ignored.push(...keys.ignored);
  const config: ProxyConfig = { version: CONFIG_SCHEMA_VERSION, proxy: settings, upstreams, routes, ...(authentication === undefined ? {} : { authentication }) };
  return { config, skipped, ignored, apiKeys: keys.set };
}

/** Checks the envelope of a snapshot from the network; routes are checked one by one later. */
export function readRouteSnapshot(value: unknown): { ok: true; snapshot: RouteSnapshot } | { ok: false; reason: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, reason: 'snapshot is not a JSON object' };
  const raw = value as Record<string, unknown>;
  if (!Number.isSafeInteger(raw['version']) || (raw['version'] as number) < 0) return { ok: false, reason: 'snapshot.version is not a non-negative integer' };
  if (!Array.isArray(raw['routes'])) return { ok: false, reason: 'snapshot.routes is not an array' };
  if (raw['upstreams'] !== undefined && !Array.isArray(raw['upstreams'])) return { ok: false, reason: 'snapshot.upstreams is not an array' };
  return {
    ok: true,
    snapshot: {
      version: raw['version'] as number,
      createdAt: typeof raw['createdAt'] === 'string' ? raw['createdAt'] : new Date().toISOString(),
      routes: raw['routes'] as Route[],
      upstreams: (raw['upstreams'] as UpstreamDefinition[] | undefined) ?? [],
      ...(raw['authentication'] === undefined || raw['authentication'] === null ? {} : { authentication: raw['authentication'] as SessionAuthenticationConfig }),
      // Checked entry by entry when applied (readApiKeySet).
      ...(raw['apiKeys'] === undefined ? {} : { apiKeys: raw['apiKeys'] as ApiKeyDigest[] }),
      ...(raw['apiKeySecretFingerprint'] === undefined ? {} : { apiKeySecretFingerprint: raw['apiKeySecretFingerprint'] as string }),
      // Checked entry by entry when applied (ControlPlaneFollower.applyHolds).
      ...(Array.isArray(raw['breakerHolds']) ? { breakerHolds: raw['breakerHolds'] as BreakerHold[] } : {}),
    },
  };
}
