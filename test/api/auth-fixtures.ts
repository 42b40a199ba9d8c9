import { createHmac, randomUUID } from 'node:crypto';
import { createTestDatabase, request, type ClientResponse } from '@gateway/testing';
import { startControlPlaneProcess, type ControlPlaneProcess } from './control-plane-process';

export const JWT_SECRET = 'auth-suite-secret-0123456789abcdefghijklmnop';
export const ADMIN = { email: 'admin@example.com', password: 'correct horse battery staple' };
export const ADMIN_ENV: NodeJS.ProcessEnv = { JWT_SECRET, ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password };

export interface CallOptions {
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export type Call = (method: string, urlPath: string, options?: CallOptions) => Promise<ClientResponse>;

/** JSON calls against one control plane, with an optional bearer token. */
export function caller(cp: Pick<ControlPlaneProcess, 'url'>): Call {
  return (method, urlPath, options = {}) =>
    request(`${cp.url}${urlPath}`, {
      method,
      headers: {
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
        ...options.headers,
      },
      body: options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
    });
}

/** Logs in and returns the token (fails the test on anything but 200). */
export async function login(call: Call, credentials: { email: string; password: string }): Promise<string> {
  const res = await call('POST', '/api/auth/login', { body: credentials });
  if (res.status !== 200) throw new Error(`login of ${credentials.email} answered ${res.status}: ${res.text}`);
  return res.json<{ data: { token: string } }>().data.token;
}

/** Polls until `check` holds (bounded), for effects that land after the response. */
export async function eventually(check: () => Promise<boolean>, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * An HS256 management token signed with `secret` (decision 20 claims), for suites that need a
 * role without creating the user first.
 */
export function managementToken(secret: string, role: 'admin' | 'user', claims: { sub?: string; email?: string; expiresInSeconds?: number } = {}): string {
  const encode = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const payload = { sub: claims.sub ?? randomUUID(), email: claims.email ?? `${role}@example.com`, role, iat: now, exp: now + (claims.expiresInSeconds ?? 3600), iss: 'gateway', jti: randomUUID() };
  const body = `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode(payload)}`;
  return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`;
}

/** A control plane with the first admin signed in, on SQLite or on a PostgreSQL database of its own. */
export interface AdminControlPlane {
  cp: ControlPlaneProcess;
  call: Call;
  adminToken: string;
  /** Stops the process and drops the database. */
  stop(): Promise<void>;
}

export async function startAdminControlPlane(dialect: 'sqlite' | 'postgres', databaseLabel: string): Promise<AdminControlPlane> {
  const database = dialect === 'postgres' ? await createTestDatabase(databaseLabel) : undefined;
  const cp = await startControlPlaneProcess({ env: { ...ADMIN_ENV, ...(database ? { DATABASE_URL: database.url } : {}) } });
  const call = caller(cp);
  return {
    cp,
    call,
    adminToken: await login(call, ADMIN),
    stop: async () => {
      await cp.stop();
      await database?.drop();
    },
  };
}
