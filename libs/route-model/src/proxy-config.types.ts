import type { CircuitBreakerConfig, HealthCheckConfig, Route } from './route.types';

/** Upstream-level breaker of spec 2.5 (`proxy.yml` upstreams), defaults of spec 8. */
export interface UpstreamCircuitBreakerConfig {
  enabled: boolean;
  failureThreshold: number;
  successThreshold: number;
  /** ms the circuit stays open. */
  timeout: number;
  halfOpenRequests: number;
  errorStatuses?: number[];
}

/** One backend of an upstream; all targets of an upstream share the path of their URLs. */
export interface UpstreamTarget {
  url: string;
  /** Share of traffic relative to the other targets, 1..1000 (Kong's default 100). */
  weight: number;
}

export type BalancingAlgorithm = 'round-robin' | 'least-connections' | 'consistent-hash';
export type HashOn = 'header' | 'cookie' | 'client-address';

/** How a request picks one target (docs/upstreams.md). */
export interface UpstreamBalancing {
  /** Default round-robin (smooth weighted, as nginx). */
  algorithm: BalancingAlgorithm;
  /** consistent-hash only; default client-address. */
  hashOn?: HashOn;
  /** Header or cookie name; required when hashOn is header or cookie. */
  hashKey?: string;
}

/** Passive health (Envoy's outlier detection): a failing target is ejected for a growing time. */
export interface UpstreamOutlierDetection {
  enabled: boolean;
  /** Consecutive failures (connection errors, timeouts, 5xx) that eject a target. */
  consecutiveFailures: number;
  /** ms; an ejection lasts baseEjectionTime times the number of times the target was ejected. */
  baseEjectionTime: number;
  /** ms; the cap of one ejection. */
  maxEjectionTime: number;
  /** At most this share of targets is ejected at once (at least one target may always be). */
  maxEjectionPercent: number;
}

/** Who declared an upstream: proxy.yml (read-only through the API) or the API. */
export type UpstreamSource = 'file' | 'api';

/** How the gateway talks TLS to an https upstream (ignored for http ones). */
export interface UpstreamTlsConfig {
  /** PEM file of the CAs that sign the upstream's certificate (default `proxy.upstreamTls.caFile`, else node's bundled roots). */
  caFile?: string;
  /** Verify the upstream's certificate and name (default true); false is logged as a warning at every load. */
  verify?: boolean;
  /** SNI and the name the certificate must carry (default the URL's host). */
  serverName?: string;
}

export interface UpstreamDefinition {
  name: string;
  /** Input shorthand for `targets: [{ url, weight: 100 }]`; normalizeUpstream folds it into targets. */
  url?: string;
  /** Always filled once normalized. */
  targets?: UpstreamTarget[];
  balancing?: UpstreamBalancing;
  circuitBreaker?: UpstreamCircuitBreakerConfig;
  /** Active checks run on every target: the path and query of `healthCheck.url`, default /health. */
  healthCheck?: HealthCheckConfig;
  outlierDetection?: UpstreamOutlierDetection;
  /** ms; host names are re-resolved on their DNS TTL, at least this often. */
  dnsRefreshInterval?: number;
  source?: UpstreamSource;
  tls?: UpstreamTlsConfig;
}

/** Server-level limits and timeouts; every value in ms or bytes. */
export interface ProxySettings {
  host: string;
  port: number;
  /** Bytes; `proxy.maxBodySize` accepts units (`10mb`). */
  maxBodySize: number;
  /** Bytes of request headers (431 beyond). */
  maxHeaderSize: number;
  /** ms to receive the request headers. */
  headersTimeout: number;
  /** ms to receive the whole request, body included (a stalled body is cut). */
  requestTimeout: number;
  /** ms an idle client connection is kept open. */
  keepAliveTimeout: number;
  /** Peers whose X-Forwarded-For is believed (IPs or CIDRs). */
  trustedProxies: string[];
  /** One JSON line per request through the gateway's logger (docs/tracing.md). */
  accessLog: AccessLogSettings;
  /** W3C trace context on proxied requests and OTLP span export (docs/tracing.md). */
  tracing: TracingSettings;
  /** The HTTPS listener next to the HTTP one (docs/tls.md); absent: HTTP only. */
  tls?: ProxyTlsSettings;
  /** Defaults for https upstreams (an upstream's own `tls` block wins). */
  upstreamTls?: { caFile?: string };
}

/** One certificate of the HTTPS listener; the first of the list is served when no name matches. */
export interface TlsCertificateFiles {
  /** PEM certificate chain (leaf first). */
  certFile: string;
  /** PEM private key of the leaf. */
  keyFile: string;
  /** SNI names it answers (`api.example.com`, `*.example.com`); default: the certificate's DNS names. */
  serverNames?: string[];
}

/** `proxy.tls`: certificates chosen by SNI, reloaded on SIGHUP and `config:reload`. */
export interface ProxyTlsSettings {
  enabled: boolean;
  /** HTTPS listen port (0: ephemeral). */
  port: number;
  certificates: TlsCertificateFiles[];
  /** Oldest protocol accepted in the handshake. */
  minVersion: 'TLSv1.2' | 'TLSv1.3';
  /** HTTP/2 offered by ALPN (HTTP/1.1 always). */
  http2: boolean;
  /** The HTTP listener answers with a permanent redirect to HTTPS (ops endpoints excepted). */
  redirectHttp: boolean;
}

export interface AccessLogSettings {
  enabled: boolean;
}

export interface TracingSettings {
  /** traceparent continued (or started) with a gateway span id on every proxied request. */
  enabled: boolean;
  /** Share of root traces (no sampled flag from a parent) that are sampled, 0..1. */
  samplingRatio: number;
  otlp: OtlpExportSettings;
}

/** OTLP/HTTP span export; secrets in headers come from environment variables, never from the file. */
export interface OtlpExportSettings {
  enabled: boolean;
  /** The collector's traces URL (`http://collector:4318/v1/traces`). */
  endpoint?: string;
  /** Header name -> name of the environment variable holding its value. */
  headersFromEnv?: Record<string, string>;
  serviceName: string;
  /** ms one export request may take. */
  timeout: number;
  /** Spans held for export at most; beyond, spans are dropped and counted. */
  maxQueueSize: number;
  maxExportBatchSize: number;
  /** ms between two exports of a partial batch. */
  scheduledDelay: number;
}

export interface SessionAuthenticationConfig {
  enabled: boolean;
  provider?: string;
  apiUrl?: string;
  tenantId?: string;
  sessionValidation: { enabled: boolean; cacheTTL: number };
  sso?: SsoConfig;
  fallbackAuth?: { enabled: boolean; methods: Array<'basic' | 'apiKey'> };
}

/** `authentication.sso`: SAML 2.0 single sign-on for management users (docs/sso.md). */
export interface SsoConfig {
  enabled: boolean;
  idpId?: string;
  /** Default return address after login (same origin as the control plane, or on `allowedReturnUrls`). */
  returnUrl?: string;
  /** The IdP's entity id: the Issuer every response and assertion must carry. */
  idpEntityId?: string;
  /** The IdP's single sign-on URL (HTTP-Redirect binding). */
  idpSsoUrl?: string;
  /** PEM certificates whose keys may sign responses (several during a rotation). */
  idpCertificates: string[];
  /** Our entity id (default `<acs origin>/api/auth/saml/metadata`). */
  spEntityId?: string;
  /** Our AssertionConsumerService URL: the Destination and Recipient every response must name. */
  acsUrl?: string;
  /** PEM private key file that signs AuthnRequests (optional), and its certificate for the metadata. */
  spPrivateKeyFile?: string;
  spCertificateFile?: string;
  /** Tolerated clock difference with the IdP, seconds. */
  clockSkewSeconds: number;
  /** Absolute return URLs (or origins) accepted next to same-origin paths. */
  allowedReturnUrls: string[];
  /** Attribute holding the email (default: the NameID). */
  emailAttribute?: string;
  nameAttribute?: string;
  groupsAttribute?: string;
  /** Group values that make the user an admin (default role `user`). */
  adminGroups: string[];
}

/** A validated `proxy.yml` (spec 2.6), routes already canonical. */
export interface ProxyConfig {
  version: string;
  proxy: ProxySettings;
  upstreams: UpstreamDefinition[];
  routes: Route[];
  authentication?: SessionAuthenticationConfig;
}

export type { CircuitBreakerConfig };
