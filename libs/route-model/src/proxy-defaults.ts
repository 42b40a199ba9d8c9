import { deepFreeze } from './deep-freeze';

/** The `proxy` block of proxy.yml when a key (or the whole block) is left out. */
export const PROXY_DEFAULTS = deepFreeze({
  host: '0.0.0.0',
  port: 8080,
  /** 10 MiB (`10mb`, spec 8's example). */
  maxBodySize: 10 * 1024 * 1024,
  /** node's own default; larger header blocks get 431. */
  maxHeaderSize: 16_384,
  headersTimeout: 10_000,
  /** node's 5 minutes would let a slow client hold a socket; 30 s bounds a stalled body. */
  requestTimeout: 30_000,
  keepAliveTimeout: 5_000,
  trustedProxies: [],
  accessLog: { enabled: false },
  tracing: {
    enabled: false,
    /** OpenTelemetry's default for root spans (ParentBased(AlwaysOn)): every trace the gateway starts. */
    samplingRatio: 1,
    otlp: {
      enabled: false,
      serviceName: 'api-gateway',
      /** The OTLP exporter defaults (OTEL_BSP_* and OTEL_EXPORTER_OTLP_TIMEOUT). */
      timeout: 10_000,
      maxQueueSize: 2048,
      maxExportBatchSize: 512,
      scheduledDelay: 5000,
    },
  },
} as const);

/** `proxy.tls` when the block is given without a key. */
export const PROXY_TLS_DEFAULTS = deepFreeze({
  enabled: true,
  port: 8443,
  /** TLS 1.0 and 1.1 are deprecated (RFC 8996). */
  minVersion: 'TLSv1.2',
  http2: true,
  redirectHttp: false,
} as const);

/** Upstream-level breaker (spec 2.5 and 8) applied inside an upstream's `circuitBreaker` block. */
export const UPSTREAM_BREAKER_DEFAULTS = deepFreeze({
  enabled: true,
  failureThreshold: 5,
  successThreshold: 2,
  /** ms the circuit stays open. */
  timeout: 60_000,
  halfOpenRequests: 3,
  errorStatuses: [500, 502, 503, 504],
} as const);

/** Upstream fields filled when left out (docs/upstreams.md says why each value). */
export const UPSTREAM_DEFAULTS = deepFreeze({
  /** Kong's default target weight. */
  weight: 100,
  algorithm: 'round-robin',
  hashOn: 'client-address',
  /** ms; Kubernetes' CoreDNS answers with a 30 s TTL by default. */
  dnsRefreshInterval: 30_000,
  /** Envoy's outlier-detection defaults. */
  outlierDetection: { enabled: true, consecutiveFailures: 5, baseEjectionTime: 30_000, maxEjectionTime: 300_000, maxEjectionPercent: 10 },
} as const);

/** Targets one upstream may list (each has its own balancer slot, health state and metrics). */
export const MAX_UPSTREAM_TARGETS = 256;

/** Spec 2.6 / 5.4: sessions validated by the external service are cached this many seconds. */
export const SESSION_CACHE_TTL_DEFAULT = 300;
