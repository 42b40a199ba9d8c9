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
  url: string;
  circuitBreaker?: UpstreamCircuitBreakerConfig;
  healthCheck?: HealthCheckConfig;
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
  /** Defaults for https upstreams (an upstream's own `tls` block wins). */
  upstreamTls?: { caFile?: string };
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
