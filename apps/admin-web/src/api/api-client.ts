import { ApiError } from './api-error';
import type {
  ApiKey,
  AuthMethods,
  BreakerStatus,
  CreatedApiKey,
  DataPlaneReport,
  EventQuery,
  GatewayEvent,
  LogLevel,
  LogLine,
  MonitoringSummary,
  NewApiKey,
  NewUser,
  Page,
  Pagination,
  ProbeAnswer,
  ProbeRequest,
  RateLimitUsage,
  Route,
  RouteHealth,
  RouteInput,
  RouteListQuery,
  RoutePage,
  SeriesMetric,
  SeriesPoint,
  SessionCheck,
  SettingsDocument,
  SettingsView,
  Upstream,
  UpstreamInput,
  UserAccount,
  Webhook,
  WebhookDelivery,
  WebhookInput,
  WebhookWithSecret,
} from './api-types';

/** The double-submit CSRF cookie the control plane sets beside the HttpOnly session cookie. */
const CSRF_COOKIE = 'gateway_csrf';
const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The one way the UI talks to the gateway: the REST API under `../api/` relative to the app (so a
 * path prefix in front of the gateway is followed), authenticated by the session cookie, with the
 * CSRF token echoed on unsafe methods. Components never call fetch themselves.
 */
export class ApiClient {
  /** Called on every 401 after sign-in: the session expired or was revoked. */
  onUnauthorized: (error: ApiError) => void = () => undefined;

  constructor(private readonly apiBase: URL) {}

  async login(email: string, password: string): Promise<void> {
    await this.request('POST', 'auth/login', { email, password, session: 'cookie' }, { signingIn: true });
  }

  /** `sloUrl`: an SSO session whose IdP has single logout; the browser goes there next. */
  async logout(): Promise<{ sloUrl?: string }> {
    return this.request<{ sloUrl?: string }>('POST', 'auth/logout');
  }

  /**
   * Whether a browser session may exist: the readable CSRF cookie lives exactly as long as the
   * HttpOnly session cookie, so without it there is nothing to check (and no 401 to provoke).
   */
  mayHaveSession(): boolean {
    return readCookie(CSRF_COOKIE) !== undefined;
  }

  /** The signed-in user, or undefined when no session cookie is valid (a 401, not an error). */
  async currentSession(): Promise<SessionCheck | undefined> {
    try {
      return await this.request<SessionCheck>('GET', 'auth/session', undefined, { signingIn: true });
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return undefined;
      throw error;
    }
  }

  /** The sign-in methods on offer (public): whether to show "Sign in with SSO". */
  async authMethods(): Promise<AuthMethods> {
    return this.request<AuthMethods>('GET', 'auth/methods', undefined, { signingIn: true });
  }

  /** Starts an SSO login returning to `returnUrl` (a path on this origin): the IdP address to go to. */
  async startSso(returnUrl: string): Promise<string> {
    return (await this.request<{ redirectUrl: string }>('POST', 'auth/saml/initiate', { returnUrl }, { signingIn: true })).redirectUrl;
  }

  /** Trades the one-time code the IdP's return carried for the cookie session. */
  async exchangeSsoCode(code: string): Promise<void> {
    await this.request('POST', 'auth/saml/exchange', { code, session: 'cookie' }, { signingIn: true });
  }

  async getSettings(): Promise<SettingsView> {
    return this.request<SettingsView>('GET', 'settings');
  }

  /** Replaces the whole document (fields left out take their defaults; a masked secret stays). */
  async saveSettings(settings: SettingsDocument): Promise<SettingsView> {
    return this.request<SettingsView>('PUT', 'settings', settings);
  }

  async listRoutes(query: RouteListQuery): Promise<RoutePage> {
    const params = new URLSearchParams({ limit: String(query.limit), offset: String(query.offset) });
    if (query.search !== undefined && query.search !== '') params.set('search', query.search);
    if (query.enabled !== undefined) params.set('enabled', String(query.enabled));
    if (query.tag !== undefined && query.tag !== '') params.set('tag', query.tag);
    if (query.deleted === true) params.set('deleted', 'true');
    const page = await this.list<Route>(`routes?${params.toString()}`);
    return { routes: page.items, pagination: page.pagination };
  }

  async getRoute(id: string): Promise<Route> {
    return this.request<Route>('GET', routePath(id));
  }

  async createRoute(route: RouteInput): Promise<Route> {
    return this.request<Route>('POST', 'routes', route);
  }

  async replaceRoute(id: string, route: RouteInput): Promise<Route> {
    return this.request<Route>('PUT', routePath(id), route);
  }

  /** toggle, clone, restore: one POST on the route that answers the route. */
  async routeAction(id: string, action: 'toggle' | 'clone' | 'restore'): Promise<Route> {
    return this.request<Route>('POST', `${routePath(id)}/${action}`);
  }

  /** Soft delete (restorable for 30 days), or for good. */
  async deleteRoute(id: string, permanent = false): Promise<void> {
    await this.send('DELETE', `${routePath(id)}${permanent ? '?permanent=true' : ''}`);
  }

  async breaker(id: string, action?: 'trip' | 'reset'): Promise<BreakerStatus> {
    const path = `${routePath(id)}/circuit-breaker`;
    return action === undefined ? this.request<BreakerStatus>('GET', path) : this.request<BreakerStatus>('POST', `${path}/${action}`);
  }

  async routeHealth(id: string): Promise<RouteHealth> {
    return this.request<RouteHealth>('GET', `${routePath(id)}/health`);
  }

  async rateLimitUsage(id: string): Promise<RateLimitUsage> {
    return this.request<RateLimitUsage>('GET', `${routePath(id)}/rate-limit`);
  }

  async testRoute(id: string, probe: ProbeRequest): Promise<ProbeAnswer> {
    return this.request<ProbeAnswer>('POST', `${routePath(id)}/test`, probe);
  }

  async purgeCache(id: string): Promise<void> {
    await this.send('DELETE', `${routePath(id)}/cache`);
  }

  /** Cluster totals and one row per route with traffic over `window` (e.g. `5m`). */
  async monitoringSummary(window: string): Promise<MonitoringSummary> {
    return this.request<MonitoringSummary>('GET', `monitoring/summary?window=${encodeURIComponent(window)}`);
  }

  /** The cluster total of one metric, one point a step from `fromMs` to now. */
  async monitoringSeries(metric: SeriesMetric, step: '1s' | '1m', fromMs: number): Promise<SeriesPoint[]> {
    const params = new URLSearchParams({ metric, step, from: new Date(fromMs).toISOString() });
    return (await this.request<{ points: SeriesPoint[] }>('GET', `monitoring/series?${params.toString()}`)).points;
  }

  async dataPlanes(): Promise<DataPlaneReport[]> {
    return this.request<DataPlaneReport[]>('GET', 'monitoring/data-planes');
  }

  /**
   * Opens GET /api/monitoring/stream with the cookie session (fetch, not EventSource: the resume
   * point travels in the Last-Event-ID header and nothing rides in the URL). The caller reads the body.
   */
  async openMonitoringStream(lastEventId: string | undefined, signal: AbortSignal): Promise<ReadableStream<Uint8Array>> {
    return this.openStream('monitoring/stream', lastEventId, signal);
  }

  /** Opens GET /api/events/stream (one frame per stored event), as the monitoring stream. */
  async openEventStream(lastEventId: string | undefined, signal: AbortSignal): Promise<ReadableStream<Uint8Array>> {
    return this.openStream('events/stream', lastEventId, signal);
  }

  /** Stored events, newest first; every filter optional. */
  async listEvents(query: EventQuery): Promise<Page<GatewayEvent>> {
    const params = new URLSearchParams({ limit: String(query.limit), offset: String(query.offset) });
    for (const name of ['type', 'severity', 'route', 'from', 'to'] as const) {
      const value = query[name];
      if (value !== undefined && value !== '') params.set(name, value);
    }
    return this.list<GatewayEvent>(`events?${params.toString()}`);
  }

  async listWebhooks(limit: number, offset: number): Promise<Page<Webhook>> {
    return this.list<Webhook>(`webhooks?limit=${limit}&offset=${offset}`);
  }

  async getWebhook(id: string): Promise<Webhook> {
    return this.request<Webhook>('GET', `webhooks/${encodeURIComponent(id)}`);
  }

  async createWebhook(input: WebhookInput): Promise<WebhookWithSecret> {
    return this.request<WebhookWithSecret>('POST', 'webhooks', input);
  }

  /** PUT: every field but the secret. */
  async updateWebhook(id: string, input: WebhookInput): Promise<Webhook> {
    return this.request<Webhook>('PUT', `webhooks/${encodeURIComponent(id)}`, input);
  }

  async setWebhookEnabled(id: string, enabled: boolean): Promise<Webhook> {
    return this.request<Webhook>('PATCH', `webhooks/${encodeURIComponent(id)}`, { enabled });
  }

  async deleteWebhook(id: string): Promise<void> {
    await this.send('DELETE', `webhooks/${encodeURIComponent(id)}`);
  }

  /** A new secret (shown once); the previous one keeps signing for `overlapSeconds`. */
  async rotateWebhookSecret(id: string, overlapSeconds: number): Promise<WebhookWithSecret> {
    return this.request<WebhookWithSecret>('POST', `webhooks/${encodeURIComponent(id)}/rotate-secret`, { overlapSeconds });
  }

  /** Sends a `webhook.ping` and answers its delivery with the attempt. */
  async testWebhook(id: string): Promise<WebhookDelivery> {
    return this.request<WebhookDelivery>('POST', `webhooks/${encodeURIComponent(id)}/test`);
  }

  async listWebhookDeliveries(id: string, limit: number, offset: number): Promise<Page<WebhookDelivery>> {
    return this.list<WebhookDelivery>(`webhooks/${encodeURIComponent(id)}/deliveries?limit=${limit}&offset=${offset}`);
  }

  async redeliverWebhook(id: string, deliveryId: string): Promise<WebhookDelivery> {
    return this.request<WebhookDelivery>('POST', `webhooks/${encodeURIComponent(id)}/deliveries/${encodeURIComponent(deliveryId)}/redeliver`);
  }

  private async openStream(path: string, lastEventId: string | undefined, signal: AbortSignal): Promise<ReadableStream<Uint8Array>> {
    const headers: Record<string, string> = { Accept: 'text/event-stream' };
    if (lastEventId !== undefined) headers['Last-Event-ID'] = lastEventId;
    let response: Response;
    try {
      response = await fetch(new URL(path, this.apiBase), { headers, credentials: 'same-origin', signal, cache: 'no-store' });
    } catch (error) {
      if (signal.aborted) throw error;
      throw new ApiError(0, 'NETWORK_ERROR', 'The gateway could not be reached');
    }
    if (!response.ok || response.body === null) {
      const error = ApiError.fromBody(response.status, await response.json().catch(() => undefined));
      if (response.status === 401) this.onUnauthorized(error);
      throw error;
    }
    return response.body;
  }

  /** proxy.yml's and the API's upstreams, by name. */
  async listUpstreams(limit: number, offset: number): Promise<Page<Upstream>> {
    return this.list<Upstream>(`upstreams?limit=${limit}&offset=${offset}`);
  }

  async getUpstream(name: string): Promise<Upstream> {
    return this.request<Upstream>('GET', `upstreams/${encodeURIComponent(name)}`);
  }

  async createUpstream(input: UpstreamInput): Promise<Upstream> {
    return this.request<Upstream>('POST', 'upstreams', input);
  }

  /** A merge patch: fields the editor does not show (health checks, outlier detection) stay as stored. */
  async patchUpstream(name: string, patch: Partial<UpstreamInput>): Promise<Upstream> {
    return this.request<Upstream>('PATCH', `upstreams/${encodeURIComponent(name)}`, patch);
  }

  async deleteUpstream(name: string): Promise<void> {
    await this.send('DELETE', `upstreams/${encodeURIComponent(name)}`);
  }

  async listUsers(limit: number, offset: number): Promise<Page<UserAccount>> {
    return this.list<UserAccount>(`users?limit=${limit}&offset=${offset}`);
  }

  async createUser(user: NewUser): Promise<UserAccount> {
    return this.request<UserAccount>('POST', 'users', user);
  }

  async setUserDisabled(id: string, disabled: boolean): Promise<UserAccount> {
    return this.request<UserAccount>('PATCH', `users/${encodeURIComponent(id)}`, { disabled });
  }

  async deleteUser(id: string): Promise<void> {
    await this.send('DELETE', `users/${encodeURIComponent(id)}`);
  }

  async listApiKeys(limit: number, offset: number): Promise<Page<ApiKey>> {
    return this.list<ApiKey>(`api-keys?limit=${limit}&offset=${offset}`);
  }

  async createApiKey(key: NewApiKey): Promise<CreatedApiKey> {
    return this.request<CreatedApiKey>('POST', 'api-keys', key);
  }

  async revokeApiKey(id: string): Promise<void> {
    await this.send('DELETE', `api-keys/${encodeURIComponent(id)}`);
  }

  /** The newest `limit` lines at `level` or more severe, oldest first; `since`: only later lines. */
  async listLogs(query: { limit: number; level?: LogLevel; since?: string }): Promise<Page<LogLine>> {
    const params = new URLSearchParams({ limit: String(query.limit) });
    if (query.level !== undefined) params.set('level', query.level);
    if (query.since !== undefined) params.set('since', query.since);
    return this.list<LogLine>(`logs?${params.toString()}`);
  }

  /** One call answering `data`, for the typed clients of later pages (src/ops/ops-api.ts). */
  async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    return this.request<T>(method, path, body);
  }

  /** One list call answering the list envelope, for the same clients. */
  async callList<T>(path: string): Promise<Page<T>> {
    return this.list<T>(path);
  }

  /** A call answering 204. */
  async callEmpty(method: string, path: string): Promise<void> {
    await this.send(method, path);
  }

  private async list<T>(path: string): Promise<Page<T>> {
    const body = (await this.send('GET', path)) as { data: T[]; pagination: Pagination };
    return { items: body.data, pagination: body.pagination };
  }

  private async request<T>(method: string, path: string, body?: unknown, options: { signingIn?: boolean } = {}): Promise<T> {
    const envelope = (await this.send(method, path, body, options)) as { data: T };
    return envelope.data;
  }

  private async send(method: string, path: string, body?: unknown, options: { signingIn?: boolean } = {}): Promise<unknown> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const csrf = readCookie(CSRF_COOKIE);
    if (UNSAFE_METHODS.has(method) && csrf !== undefined) headers['X-CSRF-Token'] = csrf;
    let response: Response;
    try {
      response = await fetch(new URL(path, this.apiBase), {
        method,
        headers,
        credentials: 'same-origin',
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch {
      throw new ApiError(0, 'NETWORK_ERROR', 'The gateway could not be reached');
    }
    const parsed: unknown = response.status === 204 ? undefined : await response.json().catch(() => undefined);
    if (response.ok) return parsed;
    const error = ApiError.fromBody(response.status, parsed);
    if (response.status === 401 && options.signingIn !== true) this.onUnauthorized(error);
    throw error;
  }
}

function routePath(id: string): string {
  return `routes/${encodeURIComponent(id)}`;
}

function readCookie(name: string): string | undefined {
  for (const part of document.cookie.split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return decodeURIComponent(value.join('='));
  }
  return undefined;
}

/** The app's base (`…/admin/`), from the <base href> the control plane writes per deep link. */
export const appBase = new URL('./', document.baseURI);

export const api = new ApiClient(new URL('../api/', appBase));
