import type { ProxyConfig, ProxySettings, SessionAuthenticationConfig, UpstreamCircuitBreakerConfig, UpstreamDefinition, UpstreamTlsConfig } from './proxy-config.types';
import { arr, bool, byteSize, int, obj, str } from './field-spec';
import { httpUrlCheck, ipOrCidrCheck, nameCheck, semverCheck } from './field-checks';
import { PROXY_DEFAULTS as P, SESSION_CACHE_TTL_DEFAULT, UPSTREAM_BREAKER_DEFAULTS as B } from './proxy-defaults';
import { HEALTH_CHECK_SCHEMA, ROUTE_SCHEMA } from './route.schema';
import { CONFIG_SCHEMA_VERSION } from './versions';

/** The proxy.yml schema (spec 2.6); routes use the route table through normalizeRoute. */

const HOUR_MS = 3_600_000;

export const PROXY_SETTINGS_SCHEMA = obj<ProxySettings>(
  {
    host: str({
      doc: 'listen address',
      default: P.host,
      check: (value, label) => (/^[A-Za-z0-9.:_-]{1,253}$/.test(value) ? undefined : { message: `${label} must be a host name or IP address` }),
    }),
    port: int({ doc: 'listen port; 0 picks a free one', default: P.port, min: 0, max: 65_535 }),
    maxBodySize: byteSize({ doc: 'largest request body (413 beyond); bytes or 512kb, 10mb, 1gb', default: P.maxBodySize, min: 0 }),
    maxHeaderSize: byteSize({ doc: 'largest request header block (431 beyond)', default: P.maxHeaderSize, min: 1024, max: 1024 * 1024 }),
    headersTimeout: int({ doc: 'ms to receive the request headers; at most requestTimeout', default: P.headersTimeout, min: 1, max: HOUR_MS }),
    requestTimeout: int({ doc: 'ms to receive the whole request (408 beyond)', default: P.requestTimeout, min: 1, max: HOUR_MS }),
    keepAliveTimeout: int({ doc: 'ms an idle client connection is kept', default: P.keepAliveTimeout, min: 1, max: HOUR_MS }),
    trustedProxies: arr({ doc: 'peers whose X-Forwarded-For is believed: IPs or CIDRs', items: str({ doc: 'IP or CIDR', check: ipOrCidrCheck }), default: P.trustedProxies, unique: true }),
    upstreamTls: obj<NonNullable<ProxySettings['upstreamTls']>>(
      { caFile: str({ doc: 'PEM CA bundle trusted for https upstreams (default: node\'s bundled roots); read at every load', minLength: 1, maxLength: 4096 }) },
      { doc: 'defaults for https upstreams; applied at every reload' },
    ),
  },
  { doc: 'listening socket settings; changes need a restart', fill: true },
);

const UPSTREAM_TLS_SCHEMA = obj<UpstreamTlsConfig>(
  {
    caFile: str({ doc: 'PEM CA bundle trusted for this upstream (default proxy.upstreamTls.caFile)', minLength: 1, maxLength: 4096 }),
    verify: bool({ doc: 'verify the certificate and its name (default true; false is warned at load)' }),
    serverName: str({
      doc: 'SNI and certificate name (default the URL host)',
      check: (value, label) => (/^[A-Za-z0-9.-]{1,253}$/.test(value) ? undefined : { message: `${label} must be a host name` }),
    }),
  },
  { doc: 'TLS to an https upstream (ignored for http)' },
);

const UPSTREAM_BREAKER_SCHEMA = obj<UpstreamCircuitBreakerConfig>(
  {
    enabled: bool({ doc: 'breaker active', default: B.enabled }),
    failureThreshold: int({ doc: 'failures that open the circuit', default: B.failureThreshold, min: 1 }),
    successThreshold: int({ doc: 'half-open successes that close it', default: B.successThreshold, min: 1 }),
    timeout: int({ doc: 'ms the circuit stays open', default: B.timeout, min: 1 }),
    halfOpenRequests: int({ doc: 'test requests let through half-open', default: B.halfOpenRequests, min: 1 }),
    errorStatuses: arr({ doc: 'statuses counted as failures', items: int({ doc: 'status', min: 100, max: 599 }), default: B.errorStatuses, unique: true }),
  },
  { doc: 'upstream breaker (spec 2.5, 3.1, 8)' },
);

export const UPSTREAM_SCHEMA = obj<UpstreamDefinition>(
  {
    name: str({ doc: 'unique; what routes name in `upstream`', required: true, check: nameCheck }),
    url: str({ doc: 'absolute http(s) URL; its path replaces the route prefix', required: true, check: httpUrlCheck }),
    circuitBreaker: UPSTREAM_BREAKER_SCHEMA,
    healthCheck: HEALTH_CHECK_SCHEMA,
    tls: UPSTREAM_TLS_SCHEMA,
  },
  { doc: 'a named backend' },
);

export const AUTHENTICATION_SCHEMA = obj<SessionAuthenticationConfig>(
  {
    enabled: bool({ doc: 'gateway authentication available to routes', default: true }),
    provider: str({ doc: 'external session service name; absent = embedded sessions (decision 23)', check: nameCheck }),
    apiUrl: str({ doc: "session service base URL; required with provider", check: httpUrlCheck }),
    tenantId: str({ doc: 'tenant at the session service', minLength: 1, maxLength: 256 }),
    sessionValidation: obj<SessionAuthenticationConfig['sessionValidation']>(
      {
        enabled: bool({ doc: 'sessions are validated', default: true }),
        cacheTTL: int({ doc: 'seconds a valid session is cached (never past its expiry)', default: SESSION_CACHE_TTL_DEFAULT, min: 0, max: 86_400 }),
      },
      { doc: 'session checks', fill: true },
    ),
    sso: obj<NonNullable<SessionAuthenticationConfig['sso']>>(
      {
        enabled: bool({ doc: 'SAML SSO offered', default: true }),
        idpId: str({ doc: 'identity provider id', minLength: 1, maxLength: 256 }),
        returnUrl: str({ doc: 'where the browser returns after login', check: httpUrlCheck }),
        idpEntityId: str({ doc: 'IdP entity id: the Issuer responses must carry', minLength: 1, maxLength: 1024 }),
        idpSsoUrl: str({ doc: 'IdP single sign-on URL (HTTP-Redirect binding)', check: httpUrlCheck }),
        idpCertificates: arr({ doc: 'PEM certificates of the IdP signing keys (several for rotation)', items: str({ doc: 'PEM certificate', minLength: 1, maxLength: 16_384 }), default: [], unique: true }),
        spEntityId: str({ doc: 'our entity id (default <acsUrl origin>/api/auth/saml/metadata)', minLength: 1, maxLength: 1024 }),
        acsUrl: str({ doc: 'our assertion consumer URL (.../api/auth/saml/callback)', check: httpUrlCheck }),
        spPrivateKeyFile: str({ doc: 'PEM key file that signs AuthnRequests', minLength: 1, maxLength: 4096 }),
        spCertificateFile: str({ doc: 'PEM certificate of that key, published in the metadata', minLength: 1, maxLength: 4096 }),
        clockSkewSeconds: int({ doc: 'tolerated clock difference with the IdP', default: 60, min: 0, max: 300 }),
        allowedReturnUrls: arr({ doc: 'absolute return URLs or origins accepted next to same-origin paths', items: str({ doc: 'URL', check: httpUrlCheck }), default: [], unique: true }),
        emailAttribute: str({ doc: 'attribute holding the email (default the NameID)', minLength: 1, maxLength: 1024 }),
        nameAttribute: str({ doc: 'attribute holding the display name', minLength: 1, maxLength: 1024 }),
        groupsAttribute: str({ doc: 'attribute holding the groups', minLength: 1, maxLength: 1024 }),
        adminGroups: arr({ doc: 'group values that map to the admin role (others: user)', items: str({ doc: 'group', minLength: 1, maxLength: 256 }), default: [], unique: true }),
      },
      { doc: 'SAML 2.0 single sign-on' },
    ),
    fallbackAuth: obj<NonNullable<SessionAuthenticationConfig['fallbackAuth']>>(
      {
        enabled: bool({ doc: 'fallback methods accepted', default: true }),
        methods: arr({ doc: 'basic and/or apiKey', items: str({ doc: 'method', oneOf: ['basic', 'apiKey'] }), default: [], unique: true }),
      },
      { doc: 'methods accepted next to SSO (spec 5.5)' },
    ),
  },
  { doc: 'gateway authentication; provider fields inline or in a block named by provider' },
);

/** Keys that may sit in the block named by `provider` instead of inline (`authentication.acme.apiUrl`). */
export const PROVIDER_BLOCK_KEYS: readonly string[] = ['apiUrl', 'tenantId', 'sessionValidation', 'sso', 'fallbackAuth'];

export const PROXY_CONFIG_SCHEMA = obj<ProxyConfig>(
  {
    version: str({ doc: `schema version, semver; major ${CONFIG_SCHEMA_VERSION.split('.')[0]}`, required: true, check: semverCheck(CONFIG_SCHEMA_VERSION.split('.')[0] ?? '1') }),
    proxy: PROXY_SETTINGS_SCHEMA,
    upstreams: arr({ doc: 'named backends', items: UPSTREAM_SCHEMA, default: [] }),
    // Walked by normalizeRoute (file ids, upstream names), listed here for the table and unknown-key check.
    routes: arr({ doc: 'routes, as in the route table; source file', items: ROUTE_SCHEMA, default: [] }),
    authentication: AUTHENTICATION_SCHEMA,
  },
  { doc: 'proxy.yml' },
);
