import type {
  ProxyConfig,
  ProxySettings,
  ProxyTlsSettings,
  SessionAuthenticationConfig,
  TlsCertificateFiles,
  UpstreamBalancing,
  UpstreamCircuitBreakerConfig,
  UpstreamDefinition,
  UpstreamOutlierDetection,
  UpstreamTarget,
  UpstreamTlsConfig,
} from './proxy-config.types';
import { arr, bool, byteSize, int, obj, str } from './field-spec';
import { headerNameCheck, httpUrlCheck, ipOrCidrCheck, nameCheck, semverCheck } from './field-checks';
import { PROXY_DEFAULTS as P, PROXY_TLS_DEFAULTS as T, SESSION_CACHE_TTL_DEFAULT, UPSTREAM_BREAKER_DEFAULTS as B, UPSTREAM_DEFAULTS as U } from './proxy-defaults';
import { ACCESS_LOG_SCHEMA, TRACING_SCHEMA } from './observability.schema';
import { HEALTH_CHECK_SCHEMA, ROUTE_SCHEMA } from './route.schema';
import { CONFIG_SCHEMA_VERSION } from './versions';

/** The proxy.yml schema (spec 2.6); routes use the route table through normalizeRoute. */

const HOUR_MS = 3_600_000;

/** A DNS name or a wildcard of one leftmost label (RFC 6125 6.4.3), as SNI carries it. */
const SERVER_NAME = /^(?:\*\.)?(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)*[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

const TLS_CERTIFICATE_SCHEMA = obj<TlsCertificateFiles>(
  {
    certFile: str({ doc: 'PEM certificate chain file (leaf first)', required: true, minLength: 1, maxLength: 4096 }),
    keyFile: str({ doc: 'PEM private key file of the leaf', required: true, minLength: 1, maxLength: 4096 }),
    serverNames: arr({
      doc: "SNI names it serves ('*.example.com' matches one label); default: the certificate's DNS names",
      items: str({
        doc: 'server name',
        maxLength: 253,
        normalize: (value) => value.toLowerCase(),
        check: (value, label) => (SERVER_NAME.test(value) ? undefined : { message: `${label} must be a DNS name, optionally starting with '*.'` }),
      }),
      unique: true,
    }),
  },
  { doc: 'a certificate and its key' },
);

const TLS_SCHEMA = obj<ProxyTlsSettings>(
  {
    enabled: bool({ doc: 'HTTPS listener on', default: T.enabled }),
    port: int({ doc: 'HTTPS listen port; 0 picks a free one', default: T.port, min: 0, max: 65_535 }),
    certificates: arr({ doc: 'certificates chosen by SNI; the first is the default', items: TLS_CERTIFICATE_SCHEMA, required: true, minItems: 1 }),
    minVersion: str({ doc: 'oldest TLS version accepted', default: T.minVersion, oneOf: ['TLSv1.2', 'TLSv1.3'] }),
    http2: bool({ doc: 'HTTP/2 offered by ALPN next to HTTP/1.1', default: T.http2 }),
    redirectHttp: bool({ doc: 'the HTTP listener redirects to HTTPS (301 GET/HEAD, 308 others); /health and /metrics stay', default: T.redirectHttp }),
  },
  { doc: 'HTTPS listener (docs/tls.md); certificates reload on SIGHUP, the rest needs a restart' },
);

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
    tls: TLS_SCHEMA,
    accessLog: ACCESS_LOG_SCHEMA,
    tracing: TRACING_SCHEMA,
    upstreamTls: obj<NonNullable<ProxySettings['upstreamTls']>>(
      { caFile: str({ doc: 'PEM CA bundle trusted for https upstreams (default: node\'s bundled roots); read at every load', minLength: 1, maxLength: 4096 }) },
      { doc: 'defaults for https upstreams; applied at every reload' },
    ),
  },
  { doc: 'listening socket settings; changes need a restart', fill: true },
);

const UPSTREAM_TLS_SCHEMA = obj<UpstreamTlsConfig>(
  {
    caFile: str({
      doc: 'PEM CA bundle trusted for this upstream (default proxy.upstreamTls.caFile); through the API an absolute path inside GATEWAY_CA_DIRS (default /etc/gateway/ca)',
      minLength: 1,
      maxLength: 4096,
    }),
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

const UPSTREAM_TARGET_SCHEMA = obj<UpstreamTarget>(
  {
    url: str({ doc: 'absolute http(s) URL; every target of an upstream has the same path', required: true, check: httpUrlCheck }),
    weight: int({ doc: 'share of traffic relative to the other targets', default: U.weight, min: 1, max: 1000 }),
  },
  { doc: 'one backend of the upstream' },
);

const UPSTREAM_BALANCING_SCHEMA = obj<UpstreamBalancing>(
  {
    algorithm: str({ doc: 'round-robin (smooth weighted), least-connections or consistent-hash', default: U.algorithm, oneOf: ['round-robin', 'least-connections', 'consistent-hash'] }),
    hashOn: str({ doc: 'consistent-hash key: header, cookie or client-address (default)', oneOf: ['header', 'cookie', 'client-address'] }),
    hashKey: str({ doc: 'header or cookie name hashed; required with hashOn header or cookie', check: headerNameCheck, maxLength: 256 }),
  },
  { doc: 'how a request picks a target', fill: true },
);

const OUTLIER_DETECTION_SCHEMA = obj<UpstreamOutlierDetection>(
  {
    enabled: bool({ doc: 'failing targets are ejected', default: U.outlierDetection.enabled }),
    consecutiveFailures: int({ doc: 'consecutive failures (connection errors, timeouts, 5xx) that eject a target', default: U.outlierDetection.consecutiveFailures, min: 1, max: 1000 }),
    baseEjectionTime: int({ doc: 'ms; an ejection lasts this times the number of ejections so far', default: U.outlierDetection.baseEjectionTime, min: 100, max: 3_600_000 }),
    maxEjectionTime: int({ doc: 'ms; the longest one ejection lasts', default: U.outlierDetection.maxEjectionTime, min: 100, max: 86_400_000 }),
    maxEjectionPercent: int({ doc: 'most targets ejected at once, percent (one target may always be)', default: U.outlierDetection.maxEjectionPercent, min: 0, max: 100 }),
  },
  { doc: 'passive health: Envoy-style outlier detection' },
);

export const UPSTREAM_SCHEMA = obj<UpstreamDefinition>(
  {
    name: str({ doc: 'unique; what routes name in `upstream`', required: true, check: nameCheck }),
    url: str({ doc: 'shorthand for one target with weight 100; its path replaces the route prefix', check: httpUrlCheck }),
    targets: arr({ doc: 'the backends traffic is balanced over (instead of url)', items: UPSTREAM_TARGET_SCHEMA, minItems: 1 }),
    balancing: UPSTREAM_BALANCING_SCHEMA,
    circuitBreaker: UPSTREAM_BREAKER_SCHEMA,
    healthCheck: HEALTH_CHECK_SCHEMA,
    outlierDetection: OUTLIER_DETECTION_SCHEMA,
    dnsRefreshInterval: int({ doc: 'ms; host names are re-resolved on their DNS TTL, at least this often', default: U.dnsRefreshInterval, min: 1000, max: 3_600_000 }),
    source: str({ doc: 'server-set: file (proxy.yml, read-only) or api', oneOf: ['file', 'api'], readOnly: true }),
    tls: UPSTREAM_TLS_SCHEMA,
  },
  { doc: 'a named backend: one or several targets' },
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
