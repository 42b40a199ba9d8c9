import type { IncomingHttpHeaders } from 'node:http';
import type { AuthConfig, Route, SessionAuthenticationConfig } from '@gateway/route-model';
import type { GatewayErrorCode } from '../../engine/error-catalogue';
import type { CallerIdentity, Exchange } from '../../engine/exchange';
import { compileExchangeClientAddress } from '../../engine/exchange-client-address';
import { IDENTITY_HEADERS as H, identityHeaderValue } from '../../engine/identity-headers';
import type { LocalReply, PolicyEnvironment, PolicyFactory, RequestHookResult } from '../../engine/policy';
import { notEnforced } from '../../engine/unenforced-config';
import { AUTH_DEFENCES } from './auth-defences';
import { API_KEY_VERIFIER, AUTH_FAILURES, JWT_VERIFIERS, SECRETS, SESSION_VALIDATORS } from './auth-services';
import { BasicCredentials, type BasicVerdict } from './basic-credentials';
import type { JwtOutcome, JwtVerify } from './jwt-verifier';
import type { SessionValidator } from './session-validator';

/** Spec 2.6 / spec 8: sessions are remembered for 300 s unless configured. */
const DEFAULT_SESSION_TTL_SECONDS = 300;
const REALM = 'gateway';

/** How one route authenticates; built once when the route loads. */
interface Plan {
  /** Bearer tokens: verified locally (jwt) or by the session service. */
  bearer?: { kind: 'jwt'; verify: JwtVerify } | { kind: 'session'; validator: SessionValidator };
  basic?: BasicCredentials;
  /** Accepts API keys; `unavailable`: the route lists them but no key can be verified (503). */
  apiKey: boolean | 'unavailable';
  allowAnonymous: boolean;
}

type Presented =
  | { scheme: 'bearer'; token: string }
  | { scheme: 'basic'; user: string; password: string }
  | { scheme: 'apiKey'; key: string }
  | { scheme: 'other' };

/** Reads the one credential a request carries: Authorization first, then X-API-Key (decision 22). */
export function readCredential(headers: IncomingHttpHeaders): Presented | undefined {
  const authorization = headers.authorization;
  if (authorization !== undefined) {
    const space = authorization.indexOf(' ');
    const scheme = (space === -1 ? authorization : authorization.slice(0, space)).toLowerCase();
    const value = space === -1 ? '' : authorization.slice(space + 1).trim();
    if (value === '') return { scheme: 'other' };
    if (scheme === 'bearer') return { scheme: 'bearer', token: value };
    if (scheme === 'apikey') return { scheme: 'apiKey', key: value };
    if (scheme === 'basic') {
      const decoded = Buffer.from(value, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon <= 0) return { scheme: 'other' };
      return { scheme: 'basic', user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
    }
    return { scheme: 'other' };
  }
  const apiKey = headers['x-api-key'];
  if (typeof apiKey === 'string' && apiKey !== '') return { scheme: 'apiKey', key: apiKey };
  return undefined;
}

/** Builds the plan, or says why the route cannot be protected as configured (it then answers 503). */
function planFor(route: Route, auth: AuthConfig, env: PolicyEnvironment): Plan | null | { problem: string } {
  const provided = env.services.provided;
  const allowAnonymous = auth.allowAnonymous === true;
  const scrypt = env.services.state.get(AUTH_DEFENCES).scrypt;
  const basicOf = (): BasicCredentials | undefined => (auth.basic === undefined ? undefined : new BasicCredentials(auth.basic.users, scrypt));
  switch (auth.type) {
    case 'none':
      return null;
    case 'jwt': {
      const name = auth.jwt?.secretEnv;
      const secret = name === undefined ? undefined : provided.get(SECRETS)(name);
      if (secret === undefined || secret === '') return { problem: `auth.jwt.secretEnv names an environment variable that is not set (${String(name)})` };
      try {
        const verify = provided.get(JWT_VERIFIERS).create({
          secret,
          algorithms: auth.jwt?.algorithms ?? ['HS256'],
          ...(auth.jwt?.validateIssuer === true && auth.jwt.issuer !== undefined ? { issuer: auth.jwt.issuer } : {}),
          validateExpiration: auth.jwt?.validateExpiration !== false,
        });
        return { bearer: { kind: 'jwt', verify }, apiKey: false, allowAnonymous };
      } catch (error) {
        return { problem: error instanceof Error ? error.message : 'auth.jwt cannot be honoured' };
      }
    }
    case 'basic': {
      const basic = basicOf();
      return basic === undefined ? { problem: 'auth.basic.users is missing' } : { basic, apiKey: false, allowAnonymous };
    }
    case 'apiKey': {
      const unavailable = provided.get(API_KEY_VERIFIER).unavailable?.();
      return unavailable === undefined ? { apiKey: true, allowAnonymous } : { problem: unavailable };
    }
    case 'oauth2':
    case 'custom':
      return { problem: `auth.type ${auth.type} is not supported by this data plane` };
    case undefined:
      break;
  }
  // Spec 5.4: a route that does not require authentication is not checked at all.
  if (auth.required !== true) return null;
  return sessionPlan(route, auth, env.authentication, env, basicOf(), allowAnonymous);
}

function sessionPlan(
  _route: Route,
  auth: AuthConfig,
  block: SessionAuthenticationConfig | undefined,
  env: PolicyEnvironment,
  basic: BasicCredentials | undefined,
  allowAnonymous: boolean,
): Plan | { problem: string } {
  if (block === undefined || !block.enabled || block.apiUrl === undefined) return { problem: 'auth.required needs an enabled top-level authentication block with apiUrl' };
  if (auth.provider !== undefined && block.provider !== undefined && auth.provider !== block.provider) {
    return { problem: `auth.provider ${auth.provider} is not the configured authentication.provider` };
  }
  const validation = block.sessionValidation;
  const validator = env.services.provided.get(SESSION_VALIDATORS).for({
    apiUrl: block.apiUrl,
    ...(block.tenantId === undefined ? {} : { tenantId: block.tenantId }),
    // sessionValidation.enabled: false turns the session cache off, not the check.
    cacheTtlSeconds: validation?.enabled === false ? 0 : (validation?.cacheTTL ?? DEFAULT_SESSION_TTL_SECONDS),
  });
  const fallback = block.fallbackAuth?.enabled === true ? block.fallbackAuth.methods : [];
  // Sessions keep working when API keys cannot be verified; only a request with a key gets 503.
  const apiKey = fallback.includes('apiKey') && (env.services.provided.get(API_KEY_VERIFIER).unavailable?.() === undefined || 'unavailable');
  return {
    bearer: { kind: 'session', validator },
    ...(fallback.includes('basic') && basic !== undefined ? { basic } : {}),
    apiKey,
    allowAnonymous,
  };
}

function challengesOf(plan: Plan): (invalidToken: boolean) => string {
  const withToken = [
    plan.bearer !== undefined ? `Bearer realm="${REALM}", error="invalid_token"` : undefined,
    plan.basic !== undefined ? `Basic realm="${REALM}", charset="UTF-8"` : undefined,
    plan.apiKey === true ? `ApiKey realm="${REALM}"` : undefined,
  ].filter((c) => c !== undefined);
  const without = withToken.map((c) => c.replace(', error="invalid_token"', ''));
  const a = withToken.join(', ');
  const b = without.join(', ');
  return (invalidToken) => (invalidToken ? a : b);
}

/** Who an anonymous request is (allowAnonymous): one object for all of them. */
const ANONYMOUS: CallerIdentity = Object.freeze({ scheme: 'anonymous', userId: undefined, keyId: undefined });

/** Records the caller: X-Gateway-* headers for the upstream, `exchange.identity` for later policies. */
function setIdentity(exchange: Exchange, scheme: CallerIdentity['scheme'], fields: { userId?: string; email?: string; role?: string; keyId?: string }): void {
  const headers = exchange.upstreamHeaders;
  headers[H.scheme] = scheme;
  if (fields.userId !== undefined) headers[H.userId] = identityHeaderValue(fields.userId);
  if (fields.email !== undefined) headers[H.userEmail] = identityHeaderValue(fields.email);
  if (fields.role !== undefined) headers[H.userRole] = identityHeaderValue(fields.role);
  if (fields.keyId !== undefined) headers[H.keyId] = identityHeaderValue(fields.keyId);
  exchange.identity = { scheme, userId: fields.userId, keyId: fields.keyId };
}

/** A claim that names someone: a non-empty string (an empty `sub` identifies nobody). */
const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/**
 * Gateway authentication per route (spec 2.1 `auth`, 5.4-5.7, decisions 22-23): `type: jwt`,
 * `apiKey` or `basic`, or the proxy.yml form `required`/`provider`/`allowAnonymous` validated by
 * the external session service with the fallback methods of `authentication.fallbackAuth`.
 * Runs before the rate limit and the cache (order 100; only the body-size check comes earlier).
 * The identity goes upstream in the X-Gateway-* headers (engine/identity-headers.ts), whose client
 * copies the engine removed, and stays on `exchange.identity` for the rate limiter's `user` scope.
 * 401 answers carry WWW-Authenticate; the session service down answers 503.
 * Refusals cost little (issue 11, docs/auth-and-limits.md "Refusals in the data plane"): a basic or session
 * credential not verified recently is checked only while its client address is under the failed-
 * credential limit (else 429 TOO_MANY_FAILED_CREDENTIALS, before scrypt or the session call);
 * scrypt work is capped (503 AUTH_OVERLOADED); just-refused credentials are answered from memory.
 * Every refusal is counted (gateway_auth_failures_total by route, scheme, reason) and the log is
 * sampled (RefusalLog); neither carries the credential.
 */
export const authPolicy: PolicyFactory = {
  key: 'auth',
  scope: 'route',
  configures: 'auth',
  order: 100,
  services: [JWT_VERIFIERS, API_KEY_VERIFIER, SESSION_VALIDATORS, SECRETS],
  metrics: [AUTH_FAILURES],
  // The UI lists these types (spec 2.1) but no verifier exists for them: refused, never served open.
  unsupported: (config) =>
    config.routes.flatMap((route, index) => {
      const type = route.auth?.type;
      const on = route.auth !== undefined && route.auth.enabled !== false;
      return on && (type === 'oauth2' || type === 'custom') ? [notEnforced(`routes[${index}].auth.type`, `auth.type '${type}' (routes[${index}].auth.type)`)] : [];
    }),
  // The pipeline compiles at the route's first request; what cannot be enforced is said when it loads.
  prepare: (route, env) => {
    const auth = route.auth;
    if (auth === undefined || auth.enabled === false) return;
    const plan = planFor(route, auth, env);
    if (plan === null) return;
    const { logger } = env.services;
    if ('problem' in plan) {
      logger.warn({ routeId: route.id, problem: plan.problem }, 'route authentication cannot be enforced; the route answers 503 until fixed');
    } else if (plan.apiKey === 'unavailable') {
      const problem = env.services.provided.get(API_KEY_VERIFIER).unavailable?.();
      logger.warn({ routeId: route.id, problem }, 'authentication.fallbackAuth lists apiKey but no API key can be verified; requests with a key answer 503');
    }
  },
  create: (route, env) => {
    const auth = route?.auth;
    if (route === undefined || auth === undefined || auth.enabled === false) return null;
    const failures = env.services.metrics.counter(AUTH_FAILURES);
    const defences = env.services.state.get(AUTH_DEFENCES);
    const clientAddress = compileExchangeClientAddress(env.settings.trustedProxies);
    const routeId = route.id;
    const plan = planFor(route, auth, env);
    if (plan === null) return null;
    if ('problem' in plan) return { onRequest: () => ({ kind: 'error', code: 'AUTH_NOT_CONFIGURED' }) };
    const apiKeys = env.services.provided.get(API_KEY_VERIFIER);
    const challenge = challengesOf(plan);

    const refuse = (exchange: Exchange, scheme: string, reason: string, code: GatewayErrorCode = 'INVALID_CREDENTIALS', retryAfter?: number): LocalReply => {
      failures.labels(routeId, scheme, reason).inc();
      defences.log.refused(reason, { correlationId: exchange.correlationId, routeId, scheme, clientIp: exchange.clientIp });
      if (code === 'AUTH_SERVICE_UNAVAILABLE' || code === 'AUTH_NOT_CONFIGURED') return { kind: 'error', code };
      if (code === 'TOO_MANY_FAILED_CREDENTIALS' || code === 'AUTH_OVERLOADED') return { kind: 'error', code, ...(retryAfter === undefined ? {} : { retryAfter }) };
      return { kind: 'error', code, headers: { 'www-authenticate': challenge(scheme === 'bearer' || scheme === 'jwt' || scheme === 'session') } };
    };
    /**
     * Before an expensive check: the 429 when the address is over the failed-credential limit, else
     * undefined and one attempt counted. A request joining a check already under way for the same
     * credential costs no attempt (a client's parallel requests with one new token are one check).
     */
    const overLimit = (exchange: Exchange, scheme: string, address: string, joining: boolean): LocalReply | undefined => {
      if (joining) return undefined;
      const retryAfter = defences.failures.attempt(address);
      return retryAfter === 0 ? undefined : refuse(exchange, scheme, 'too_many_failures', 'TOO_MANY_FAILED_CREDENTIALS', retryAfter);
    };

    return {
      onRequest(exchange): RequestHookResult | Promise<RequestHookResult> {
        const presented = readCredential(exchange.req.headers);
        if (presented === undefined) {
          if (plan.allowAnonymous) {
            exchange.upstreamHeaders[H.scheme] = 'anonymous';
            exchange.identity = ANONYMOUS;
            return undefined;
          }
          return refuse(exchange, 'none', 'missing', 'UNAUTHORIZED');
        }
        switch (presented.scheme) {
          case 'bearer': {
            const bearer = plan.bearer;
            if (bearer === undefined) return refuse(exchange, 'bearer', 'scheme_not_accepted');
            if (bearer.kind === 'jwt') {
              const onJwt = (outcome: JwtOutcome): RequestHookResult => {
                if (!outcome.ok) return refuse(exchange, 'jwt', outcome.reason);
                const claims = outcome.claims;
                setIdentity(exchange, 'jwt', { userId: str(claims['sub']), email: str(claims['email']), role: str(claims['role']) });
                return undefined;
              };
              const outcome = bearer.verify(presented.token);
              // A token verified moments ago is answered synchronously: no promise per request.
              return outcome instanceof Promise ? outcome.then(onJwt) : onJwt(outcome);
            }
            const validator = bearer.validator;
            const digest = validator.digest(presented.token);
            const known = validator.known(digest);
            if (known?.kind === 'valid') {
              setIdentity(exchange, 'session', { userId: known.user.id, email: known.user.email, role: known.user.role });
              return undefined;
            }
            const address = clientAddress(exchange);
            const joining = validator.checking(digest);
            const limited = overLimit(exchange, 'session', address, joining);
            if (limited !== undefined) return limited;
            return validator.validate(presented.token, digest).then((outcome) => {
              if (outcome.kind === 'invalid') return refuse(exchange, 'session', 'invalid_session');
              if (outcome.kind === 'unavailable') {
                // Not judged at all: not a failed credential.
                if (!joining) defences.failures.refund(address);
                return refuse(exchange, 'session', `service_${outcome.reason}`, 'AUTH_SERVICE_UNAVAILABLE');
              }
              if (!joining) defences.failures.succeeded(address);
              const { id, email, role } = outcome.user;
              setIdentity(exchange, 'session', { userId: id, email, role });
              return undefined;
            });
          }
          case 'basic': {
            const basic = plan.basic;
            if (basic === undefined) return refuse(exchange, 'basic', 'scheme_not_accepted');
            const user = presented.user;
            const digest = basic.digest(user, presented.password);
            if (basic.remembered(digest)) {
              setIdentity(exchange, 'basic', { userId: user });
              return undefined;
            }
            const address = clientAddress(exchange);
            const joining = basic.checking(digest);
            const limited = overLimit(exchange, 'basic', address, joining);
            if (limited !== undefined) return limited;
            return basic.verify(digest, user, presented.password).then((verdict: BasicVerdict) => {
              // A credential the gateway had no capacity to check keeps its attempt counted (see FailedCredentialLimit).
              if (verdict === 'busy') return refuse(exchange, 'basic', 'overloaded', 'AUTH_OVERLOADED', 1);
              if (verdict === 'refused') return refuse(exchange, 'basic', 'invalid_credentials');
              if (!joining) defences.failures.succeeded(address);
              setIdentity(exchange, 'basic', { userId: user });
              return undefined;
            });
          }
          case 'apiKey': {
            if (plan.apiKey === false) return refuse(exchange, 'apiKey', 'scheme_not_accepted');
            if (plan.apiKey === 'unavailable') return refuse(exchange, 'apiKey', 'not_configured', 'AUTH_NOT_CONFIGURED');
            return apiKeys.verify(presented.key).then((identity) => {
              if (identity === null) return refuse(exchange, 'apiKey', 'unknown_key');
              setIdentity(exchange, 'apiKey', { keyId: identity.keyId, userId: identity.userId });
              return undefined;
            });
          }
          case 'other':
            return refuse(exchange, 'other', 'scheme_not_accepted');
        }
      },
    };
  },
};
