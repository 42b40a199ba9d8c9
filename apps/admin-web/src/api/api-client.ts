import { ApiError } from './api-error';
import type { AuthMethods, Route, RouteListQuery, RoutePage, SessionCheck, SettingsDocument, SettingsView } from './api-types';

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
    const body = await this.send('GET', `routes?${params.toString()}`);
    const list = body as { data: Route[]; pagination: RoutePage['pagination'] };
    return { routes: list.data, pagination: list.pagination };
  }

  async getRoute(id: string): Promise<Route> {
    return this.request<Route>('GET', `routes/${encodeURIComponent(id)}`);
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
