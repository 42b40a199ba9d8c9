import type http from 'node:http';
import { request, type ClientResponse } from './http-client';

/** JSON calls to a control plane's management API with an admin's bearer token. */
export interface ManagementApi {
  readonly baseUrl: string;
  readonly token: string;
  /** `body` is sent as JSON; the response is returned whatever its status. */
  call(method: string, urlPath: string, body?: unknown): Promise<ClientResponse>;
  /** Like `call`, but fails with the answer's status and body unless it is `expected`. */
  expect(expected: number, method: string, urlPath: string, body?: unknown): Promise<ClientResponse>;
}

export interface ManagementApiOptions {
  /** A keep-alive agent (benchmarks); default a fresh connection per call. */
  agent?: http.Agent;
  timeoutMs?: number;
}

/** Logs in through `POST /api/auth/login` and returns a client holding the token. */
export async function loginToManagementApi(baseUrl: string, credentials: { email: string; password: string }, options: ManagementApiOptions = {}): Promise<ManagementApi> {
  const send = (method: string, urlPath: string, body: unknown, token?: string): Promise<ClientResponse> =>
    request(`${baseUrl}${urlPath}`, {
      method,
      agent: options.agent ?? false,
      timeoutMs: options.timeoutMs ?? 10_000,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const checked = (res: ClientResponse, expected: number, what: string): ClientResponse => {
    if (res.status !== expected) throw new Error(`${what} answered ${res.status}, expected ${expected}: ${res.text}`);
    return res;
  };
  const login = checked(await send('POST', '/api/auth/login', credentials), 200, `login of ${credentials.email}`);
  const token = login.json<{ data: { token: string } }>().data.token;
  return {
    baseUrl,
    token,
    call: (method, urlPath, body) => send(method, urlPath, body, token),
    expect: async (expected, method, urlPath, body) => checked(await send(method, urlPath, body, token), expected, `${method} ${urlPath}`),
  };
}
