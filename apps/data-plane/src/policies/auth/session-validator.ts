import { createHash } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { GenerationalCache } from '../../engine/generational-cache';
import { RefusedCredentials } from './refused-credentials';
import { SingleFlight } from './single-flight';

/** The user a session belongs to (spec 2.7 "Session check"). */
export interface SessionUser {
  readonly id: string;
  readonly email?: string;
  readonly role?: string;
}

export type SessionOutcome = { kind: 'valid'; user: SessionUser } | { kind: 'invalid' } | { kind: 'unavailable'; reason: string };

export interface SessionServiceConfig {
  /** Base URL of the external session service (`authentication.apiUrl`). */
  readonly apiUrl: string;
  readonly tenantId?: string;
  /** Seconds a valid session is remembered (`sessionValidation.cacheTTL`, default 300). */
  readonly cacheTtlSeconds: number;
}

/** Bounded wait for the session service: a slow service must answer the client with 503 quickly. */
export const SESSION_SERVICE_TIMEOUT_MS = 2000;
/** Sessions remembered at most (two generations of half as many: the older half goes at once). */
const CACHE_MAX = 10_000;

const MAX_RESPONSE_BYTES = 64 * 1024;

const INVALID: SessionOutcome = Object.freeze({ kind: 'invalid' });

interface Remembered {
  user: SessionUser;
  until: number;
}

function userOf(value: unknown): SessionUser | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { id, email, role } = value as Record<string, unknown>;
  if (typeof id !== 'string' && typeof id !== 'number') return undefined;
  return { id: String(id), ...(typeof email === 'string' ? { email } : {}), ...(typeof role === 'string' ? { role } : {}) };
}

/**
 * Validates bearer tokens with the external session service (decision 23). The contract, in
 * docs/edge-policies.md: `GET <apiUrl>/sessions/validate` with `Authorization: Bearer <token>` (and
 * `X-Tenant-Id` when configured) answers 200 `{valid, user: {id, email, role}, expiresAt}`;
 * 200 with `valid: false`, 401, 403 or 404 mean invalid; anything else, a timeout or a refused
 * connection means the service is unavailable (the gateway answers 503, never 401).
 * Valid sessions are remembered for `cacheTTL` seconds, never past `expiresAt`, under a SHA-256
 * of the token; tokens it called invalid are answered from memory for a few seconds
 * (RefusedCredentials); concurrent checks of one token share one call.
 */
export class SessionValidator {
  private readonly cache = new GenerationalCache<string, Remembered>(CACHE_MAX / 2);
  /** Tokens the service just called invalid, answered 401 without asking again for a few seconds. */
  private readonly refused: RefusedCredentials;
  private readonly calls = new SingleFlight<string, SessionOutcome & { expiresAt?: number }>();
  private readonly url: URL;
  private readonly agent: http.Agent;

  constructor(
    readonly config: SessionServiceConfig,
    private readonly now: () => number = Date.now,
  ) {
    this.refused = new RefusedCredentials(undefined, now);
    this.url = new URL(`${config.apiUrl.replace(/\/+$/, '')}/sessions/validate`);
    this.agent = this.url.protocol === 'https:' ? new https.Agent({ keepAlive: true, maxSockets: 64 }) : new http.Agent({ keepAlive: true, maxSockets: 64 });
  }

  /** The key a token is known by in the caches: a SHA-256 of it, never the token. */
  digest(token: string): string {
    return createHash('sha256').update(token).digest('base64');
  }

  /** What the caches say about a token without asking the service: valid, just refused, or unknown. */
  known(digest: string): SessionOutcome | undefined {
    const remembered = this.cache.get(digest);
    if (remembered !== undefined) {
      if (remembered.until > this.now()) return { kind: 'valid', user: remembered.user };
      this.cache.delete(digest);
    }
    return this.refused.has(digest) ? INVALID : undefined;
  }

  /** The service is being asked about this token: a request presenting it joins that call. */
  checking(digest: string): boolean {
    return this.calls.has(digest);
  }

  validate(token: string, digest = this.digest(token)): Promise<SessionOutcome> {
    const known = this.known(digest);
    if (known !== undefined) return Promise.resolve(known);
    return this.calls
      .run(digest, () =>
        this.ask(token).then((outcome) => {
          if (outcome.kind === 'valid') this.remember(digest, outcome);
          else if (outcome.kind === 'invalid') this.refused.add(digest);
          return outcome;
        }),
      )
      .then((outcome) => (outcome.kind === 'valid' ? { kind: 'valid', user: outcome.user } : outcome));
  }

  close(): void {
    this.agent.destroy();
  }

  private remember(id: string, outcome: { user: SessionUser; expiresAt?: number }): void {
    const until = Math.min(this.now() + this.config.cacheTtlSeconds * 1000, outcome.expiresAt ?? Number.POSITIVE_INFINITY);
    if (until <= this.now()) return;
    this.cache.set(id, { user: outcome.user, until });
  }

  private ask(token: string): Promise<SessionOutcome & { expiresAt?: number }> {
    const transport = this.url.protocol === 'https:' ? https : http;
    return new Promise((resolve) => {
      let settled = false;
      const done = (outcome: SessionOutcome & { expiresAt?: number }): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(outcome);
      };
      const headers: http.OutgoingHttpHeaders = { authorization: `Bearer ${token}`, accept: 'application/json' };
      if (this.config.tenantId !== undefined) headers['x-tenant-id'] = this.config.tenantId;
      const req = transport.request(this.url, { method: 'GET', headers, agent: this.agent });
      const timer = setTimeout(() => {
        req.destroy();
        done({ kind: 'unavailable', reason: 'timeout' });
      }, SESSION_SERVICE_TIMEOUT_MS);
      req.on('error', () => done({ kind: 'unavailable', reason: 'unreachable' }));
      req.on('response', (res) => {
        const status = res.statusCode ?? 0;
        if (status === 401 || status === 403 || status === 404) {
          res.resume();
          done({ kind: 'invalid' });
          return;
        }
        if (status !== 200) {
          res.resume();
          done({ kind: 'unavailable', reason: `status_${status}` });
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_RESPONSE_BYTES) {
            res.destroy();
            done({ kind: 'unavailable', reason: 'bad_response' });
          } else chunks.push(chunk);
        });
        res.on('error', () => done({ kind: 'unavailable', reason: 'unreachable' }));
        res.on('end', () => done(this.read(Buffer.concat(chunks).toString('utf8'))));
      });
      req.end();
    });
  }

  private read(text: string): SessionOutcome & { expiresAt?: number } {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return { kind: 'unavailable', reason: 'bad_response' };
    }
    if (typeof body !== 'object' || body === null) return { kind: 'unavailable', reason: 'bad_response' };
    const { valid, user, expiresAt } = body as Record<string, unknown>;
    if (valid !== true) return { kind: 'invalid' };
    const parsedUser = userOf(user);
    if (parsedUser === undefined) return { kind: 'unavailable', reason: 'bad_response' };
    if (expiresAt === undefined || expiresAt === null) return { kind: 'valid', user: parsedUser };
    // ISO 8601 per spec 2.7; a number is epoch seconds (or ms when that large).
    const at = typeof expiresAt === 'number' ? (expiresAt < 1e12 ? expiresAt * 1000 : expiresAt) : Date.parse(String(expiresAt));
    if (!Number.isFinite(at)) return { kind: 'unavailable', reason: 'bad_response' };
    if (at <= this.now()) return { kind: 'invalid' };
    return { kind: 'valid', user: parsedUser, expiresAt: at };
  }
}

/** One validator (and its cache) per session service, kept across reloads. */
export class SessionValidators {
  private readonly validators = new Map<string, SessionValidator>();

  for(config: SessionServiceConfig): SessionValidator {
    const id = `${config.apiUrl}\u0000${config.tenantId ?? ''}\u0000${config.cacheTtlSeconds}`;
    let validator = this.validators.get(id);
    if (validator === undefined) this.validators.set(id, (validator = new SessionValidator(config)));
    return validator;
  }

  close(): void {
    for (const validator of this.validators.values()) validator.close();
    this.validators.clear();
  }
}
