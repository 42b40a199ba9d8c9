import { DomainError } from '../common/domain-error';
import type { SessionServiceEndpoint } from './session-service-config';

const MAX_BODY_BYTES = 64 * 1024;

export interface NewSession {
  userId: string;
  email: string;
  role: string;
  expiresAt: Date;
  nameId?: string;
  nameIdFormat?: string;
  sessionIndex?: string;
}

export type SessionValidity = { valid: true; expiresAt?: Date } | { valid: false };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Anything but a clear answer: the service is unavailable (503, never a silent 401). */
function unavailable(reason: string): DomainError {
  return new DomainError('AUTH_SERVICE_UNAVAILABLE', undefined, { reason });
}

/**
 * The control plane's calls to the external session service (decision 23; the contract is in
 * docs/edge-policies.md): create, validate by id, revoke. Each call has a deadline (2 s unless
 * settings say otherwise), a bounded answer, and the service's API key when one is configured.
 */
export class SessionServiceClient {
  constructor(private readonly service: SessionServiceEndpoint) {}

  async create(session: NewSession): Promise<{ sessionId: string; expiresAt: Date }> {
    const { status, body } = await this.call('POST', 'sessions', {
      user: { id: session.userId, email: session.email, role: session.role },
      expiresAt: session.expiresAt.toISOString(),
      ...(session.nameId === undefined ? {} : { nameId: session.nameId }),
      ...(session.sessionIndex === undefined ? {} : { sessionIndex: session.sessionIndex }),
    });
    if (status !== 200 && status !== 201) throw unavailable(`create answered ${status}`);
    const sessionId = isObject(body) ? body['sessionId'] : undefined;
    if (typeof sessionId !== 'string' || sessionId.length === 0 || sessionId.length > 128) throw unavailable('create answered no sessionId');
    const expiresAt = isObject(body) && typeof body['expiresAt'] === 'string' ? new Date(body['expiresAt']) : session.expiresAt;
    return { sessionId, expiresAt: Number.isNaN(expiresAt.getTime()) ? session.expiresAt : expiresAt };
  }

  async validate(sessionId: string): Promise<SessionValidity> {
    const { status, body } = await this.call('GET', `sessions/${encodeURIComponent(sessionId)}`);
    if (status === 401 || status === 403 || status === 404) return { valid: false };
    if (status !== 200 || !isObject(body) || typeof body['valid'] !== 'boolean') throw unavailable(`validate answered ${status}`);
    if (!body['valid']) return { valid: false };
    if (body['expiresAt'] === undefined) return { valid: true };
    const expiresAt = typeof body['expiresAt'] === 'string' ? new Date(body['expiresAt']) : new Date(Number.NaN);
    if (Number.isNaN(expiresAt.getTime())) throw unavailable('validate answered a bad expiresAt');
    return expiresAt.getTime() > Date.now() ? { valid: true, expiresAt } : { valid: false };
  }

  async revoke(sessionId: string): Promise<void> {
    const { status } = await this.call('DELETE', `sessions/${encodeURIComponent(sessionId)}`);
    // Already gone is revoked.
    if (status !== 200 && status !== 204 && status !== 404) throw unavailable(`revoke answered ${status}`);
  }

  private async call(method: string, path: string, payload?: unknown): Promise<{ status: number; body: unknown }> {
    const base = this.service.apiUrl.endsWith('/') ? this.service.apiUrl : `${this.service.apiUrl}/`;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (payload !== undefined) headers['content-type'] = 'application/json';
    if (this.service.tenantId !== undefined) headers['x-tenant-id'] = this.service.tenantId;
    if (this.service.apiKey !== undefined) headers['authorization'] = `Bearer ${this.service.apiKey}`;
    let response: Response;
    try {
      response = await fetch(new URL(path, base), { method, headers, redirect: 'error', signal: AbortSignal.timeout(this.service.timeoutMs), ...(payload === undefined ? {} : { body: JSON.stringify(payload) }) });
    } catch (error) {
      throw unavailable((error as Error).name === 'TimeoutError' ? 'timeout' : 'unreachable');
    }
    let text: string;
    try {
      text = await readBounded(response);
    } catch {
      throw unavailable('bad response');
    }
    if (text === '') return { status: response.status, body: undefined };
    try {
      return { status: response.status, body: JSON.parse(text) as unknown };
    } catch {
      return { status: response.status, body: undefined };
    }
  }
}

async function readBounded(response: Response): Promise<string> {
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      throw new Error('answer too large');
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
