// The shapes of the REST API (decision 1's envelopes) that the UI reads. Routes are the route
// model's own type: the API answers canonical routes (docs/routes-api.md).
import type { FieldError, Route } from '@gateway/route-model';

export type { Route, FieldError };

export type UserRole = 'admin' | 'user';

export interface SessionUser {
  id: string;
  email: string;
  role: UserRole;
}

export interface SessionCheck {
  valid: true;
  user: SessionUser;
  expiresAt: string;
}

export interface AuthMethods {
  password: true;
  sso: { enabled: boolean; initiateUrl?: string };
}

export interface Pagination {
  total: number;
  limit: number;
  offset: number;
  hasMore: boolean;
}

export interface RoutePage {
  routes: Route[];
  pagination: Pagination;
}

export interface RouteListQuery {
  limit: number;
  offset: number;
  search?: string;
  enabled?: boolean;
  /** Only routes carrying exactly this tag. */
  tag?: string;
}

export interface ErrorBody {
  success: false;
  error: string;
  code: string;
  details?: { fields?: FieldError[] } & Record<string, unknown>;
}

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
export interface UserAccount {
  id: string;
  email: string;
  role: UserRole;
  createdAt: string;
  disabled: boolean;
}

export interface NewUser {
  email: string;
  password: string;
  role: UserRole;
}

export type ApiKeyStatus = 'active' | 'revoked' | 'expired';

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

export interface LogLine {
  time: string;
  level: LogLevel;
  plane: 'control' | 'data' | 'cli';
  context: string | null;
  correlationId: string | null;
  message: string;
  fields: Record<string, unknown>;
  instance?: string;
}

/** GET/PUT /api/settings: the document by section, secrets shown as '********' (or null when unset). */
export type SettingsDocument = Record<string, Record<string, unknown>>;

export interface SettingsView {
  version: number;
  changedAt: string | null;
  actor: string | null;
  settings: SettingsDocument;
}

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
