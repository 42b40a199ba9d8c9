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

export interface UpstreamDefinition {
  name: string;
  url: string;
  circuitBreaker?: UpstreamCircuitBreakerConfig;
  healthCheck?: HealthCheckConfig;
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
}

export interface SessionAuthenticationConfig {
  enabled: boolean;
  provider?: string;
  apiUrl?: string;
  tenantId?: string;
  sessionValidation: { enabled: boolean; cacheTTL: number };
  sso?: { enabled: boolean; idpId?: string; returnUrl?: string };
  fallbackAuth?: { enabled: boolean; methods: Array<'basic' | 'apiKey'> };
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
