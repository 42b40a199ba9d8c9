// The shapes of the REST API the UI reads, all taken from the types openapi-typescript generates
// (in the build) from apps/control-plane/openapi.json, the document a running control plane
// serves. An API change that breaks the UI therefore breaks `npm run build`.
import type { Route as ModelRoute } from '@gateway/route-model';
import type { components, paths } from './openapi.generated';

type Operation<P extends keyof paths, M extends keyof paths[P]> = NonNullable<paths[P][M]>;
type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : never;
/** The JSON body an operation answers with a status. */
export type AnswerOf<P extends keyof paths, M extends keyof paths[P], S extends number> =
  Operation<P, M> extends { responses: infer Rs } ? (S extends keyof Rs ? JsonOf<Rs[S]> : never) : never;
/** The `data` of a success envelope. */
export type DataOf<P extends keyof paths, M extends keyof paths[P], S extends number = 200> = AnswerOf<P, M, S> extends { data: infer D } ? D : never;
/** The query parameters an operation declares. */
export type QueryOf<P extends keyof paths, M extends keyof paths[P]> = Operation<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
/** The JSON body an operation takes. */
export type BodyOf<P extends keyof paths, M extends keyof paths[P]> = Operation<P, M> extends { requestBody?: infer B } ? JsonOf<NonNullable<B>> : never;

/** The canonical route as the API answers it (the route model's JSON Schema). */
export type Route = components['schemas']['Route'];
/** A POST / PUT body: the same fields, only path and upstream required. */
export type RouteInput = components['schemas']['RouteInput'];

/**
 * What the API documents as a route is a route of the model: the editor hands an answer to the
 * model's validator (validateRoute / normalizeRoute). Fails the type check when they part.
 */
type Agrees<A, B> = [A] extends [B] ? true : false;
export const ROUTE_TYPES_AGREE: Agrees<Route, ModelRoute & { deletedAt?: string }> = true;

/** An upstream as the API answers it (docs/upstreams.md, section API). */
export type Upstream = components['schemas']['Upstream'];
/** A POST / PUT body of /api/upstreams. */
export type UpstreamInput = components['schemas']['UpstreamInput'];

export type SessionCheck = DataOf<'/api/auth/session', 'get'>;
export type SessionUser = SessionCheck['user'];
export type UserRole = SessionUser['role'];

export type Pagination = AnswerOf<'/api/routes', 'get', 200>['pagination'];
export type RouteListQuery = QueryOf<'/api/routes', 'get'>;

export type AuthMethods = DataOf<'/api/auth/methods', 'get'>;

export interface RoutePage {
  routes: Route[];
  pagination: Pagination;
}

export type ErrorBody = components['schemas']['ErrorEnvelope'];
export type FieldError = NonNullable<NonNullable<ErrorBody['details']>['fields']>[number];

export type BreakerStatus = DataOf<'/api/routes/{id}/circuit-breaker', 'get'>;
export type RouteHealth = DataOf<'/api/routes/{id}/health', 'get'>;
export type RateLimitUsage = DataOf<'/api/routes/{id}/rate-limit', 'get'>;
export type ProbeRequest = BodyOf<'/api/routes/{id}/test', 'post'>;
export type ProbeAnswer = DataOf<'/api/routes/{id}/test', 'post'>;


// Monitoring (docs/telemetry.md). Restated from @gateway/events, which the browser build cannot
// import (it pulls ioredis); the generated client types replace these.
export type BreakerState = 'CLOSED' | 'OPEN' | 'HALF_OPEN';
export type HealthIndicator = 'Healthy' | 'Degraded' | 'Unhealthy' | 'Unknown';

export interface TrafficOverview {
  requests: number;
  rps: number;
  /** 5xx answers, % of requests. */
  errorPercent: number;
  p50: number;
  p95: number;
  p99: number;
  rateLimitHits: number;
  /** 0..1 */
  cacheHitRatio: number;
}

export interface RouteOverview extends TrafficOverview {
  routeId: string;
  breaker: BreakerState | null;
  health: HealthIndicator | null;
}

export interface MonitoringSummary {
  from: string;
  to: string;
  windowSeconds: number;
  reporting: number;
  total: TrafficOverview;
  routes: RouteOverview[];
}

export interface LatencySummary {
  p50: number;
  p95: number;
  p99: number;
  meanMs: number;
}

/** Counts of one second: `statusClasses` is [2xx, 3xx, 4xx, 5xx], `outcomes` follows REQUEST_OUTCOMES. */
export interface TrafficSecond {
  requests: number;
  statusClasses: [number, number, number, number];
  outcomes: [number, number, number, number, number, number, number];
  retries: number;
  bytesIn: number;
  bytesOut: number;
  latency: LatencySummary;
}

export interface RouteSecond extends TrafficSecond {
  routeId: string;
  breaker?: BreakerState;
  health?: HealthIndicator;
}

export interface UpstreamSecond extends TrafficSecond {
  upstream: string;
  breaker?: BreakerState;
  health?: HealthIndicator;
}

/** One `second` frame of GET /api/monitoring/stream. */
export interface ClusterSecond {
  start: number;
  durationMs: number;
  reporting: number;
  total: TrafficSecond;
  routes: RouteSecond[];
  upstreams: UpstreamSecond[];
}

export type SeriesMetric = 'requests' | 'errors' | 'errorPercent' | 'p50' | 'p95' | 'p99';

export interface SeriesPoint {
  /** ISO 8601 start of the interval. */
  t: string;
  value: number;
}

export interface DataPlaneReport {
  instanceId: string;
  address: string;
  version: string;
  configRevision: number;
  lastReport: string;
  status: 'live' | 'stale';
  droppedWindows: number;
}

// Users, API keys, logs (docs/control-plane.md, docs/api-keys.md).
export type UserAccount = components['schemas']['UserResponseDto'];

export interface NewUser {
  email: string;
  password: string;
  role: UserRole;
}

export type ApiKeyStatus = 'active' | 'revoked' | 'expired';

// Written by hand while the API key DTO documents its nullable dates as empty objects.
export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  status: ApiKeyStatus;
  createdBy: string;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
}

/** The create answer: the key itself, shown this once. */
export interface CreatedApiKey extends ApiKey {
  key: string;
}

export interface NewApiKey {
  name: string;
  expiresAt?: string;
}

export interface Page<T> {
  items: T[];
  pagination: Pagination;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export type LogLine = DataOf<'/api/logs', 'get'>[number];

/** GET/PUT /api/settings: the document by section, secrets shown as '********' (or null when unset). */
export type SettingsDocument = Record<string, Record<string, unknown>>;

export type SettingsView = DataOf<'/api/settings', 'get'>;

// Events and webhooks (docs/events.md, docs/webhooks.md).
export type EventSeverity = 'INFO' | 'WARNING' | 'CRITICAL';

/** A stored gateway event: the envelope `{id, type, createdAt, data}` (decision 24). */
export interface GatewayEvent {
  id: string;
  type: string;
  createdAt: string;
  /** For detector kinds the spec 6.1 object (type, severity, summary, confidence, data, context). */
  data: Record<string, unknown>;
}

export interface EventQuery {
  limit: number;
  offset: number;
  type?: string;
  severity?: EventSeverity;
  route?: string;
  /** ISO 8601, inclusive. */
  from?: string;
  to?: string;
}

export interface Webhook {
  id: string;
  url: string;
  events: string[];
  severity: EventSeverity[] | null;
  enabled: boolean;
  description: string | null;
  disabledReason: string | null;
  failingSince: string | null;
  previousSecretExpiresAt: string | null;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

/** The create and rotate answers: the secret, shown this once. */
export interface WebhookWithSecret extends Webhook {
  secret: string;
}

export interface WebhookInput {
  url: string;
  events: string[];
  severity: EventSeverity[] | null;
  enabled: boolean;
  description: string | null;
}

export interface WebhookAttempt {
  attempt: number;
  at: string;
  statusCode: number | null;
  latencyMs: number;
  responseExcerpt: string | null;
  error: string | null;
}

export interface WebhookDelivery {
  id: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  maxAttempts: number;
  nextAttemptAt: string | null;
  countsForHealth: boolean;
  createdAt: string;
  updatedAt: string;
  attemptLog: WebhookAttempt[];
}
