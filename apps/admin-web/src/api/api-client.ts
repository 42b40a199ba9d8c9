import { ApiError } from './api-error';
import type { BreakerStatus, MonitoringSecond, ProbeAnswer, ProbeRequest, RateLimitUsage, Route, RouteHealth, RouteInput, RouteListQuery, RoutePage, SessionCheck } from './api-types';

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

  async logout(): Promise<void> {
    await this.request('POST', 'auth/logout');
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

  async listRoutes(query: RouteListQuery): Promise<RoutePage> {
    const params = new URLSearchParams({ limit: String(query.limit), offset: String(query.offset) });
    if (query.search !== undefined && query.search !== '') params.set('search', query.search);
    if (query.enabled !== undefined) params.set('enabled', String(query.enabled));
    if (query.deleted === true) params.set('deleted', 'true');
    const body = await this.send('GET', `routes?${params.toString()}`);
    const list = body as { data: Route[]; pagination: RoutePage['pagination'] };
    return { routes: list.data, pagination: list.pagination };
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

  /**
   * The telemetry stream (one `second` event a second, sent with the session cookie); returns the
   * function that closes it. It ends itself with an `end` event when the session does.
   */
  monitoringStream(onSecond: (second: MonitoringSecond) => void): () => void {
    const source = new EventSource(new URL('monitoring/stream', this.apiBase));
    source.addEventListener('second', (event) => {
      const second = parseSecond((event as MessageEvent<string>).data);
      if (second !== undefined) onSecond(second);
    });
    source.addEventListener('end', () => source.close());
    return () => source.close();
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

function parseSecond(data: string): MonitoringSecond | undefined {
  try {
    const parsed = JSON.parse(data) as Partial<MonitoringSecond>;
    return typeof parsed.start === 'number' && Array.isArray(parsed.routes) ? (parsed as MonitoringSecond) : undefined;
  } catch {
    return undefined;
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
