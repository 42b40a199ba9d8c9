import http from 'node:http';
import https from 'node:https';
import type { RouteSnapshot } from '@gateway/events';
import { parseJsonSteps } from '../engine/json-steps';
import { runInSlices } from '../engine/time-slices';

/** The control plane's internal endpoint (never public; see the contract). */
export const SNAPSHOT_PATH = '/internal/cluster/snapshot';

export interface HttpSnapshotFetcherOptions {
  /** ms to get a connection. */
  connectTimeoutMs?: number;
  /** ms from sending the request to the end of the body. */
  responseTimeoutMs?: number;
  /** Largest body accepted, in bytes. */
  maxBodyBytes?: number;
  /** Extra TLS settings for an https control plane (a private CA). */
  ca?: string | Buffer;
}

const DEFAULTS = { connectTimeoutMs: 2000, responseTimeoutMs: 5000, maxBodyBytes: 32 * 1024 * 1024 };

/** A fetch that failed, with a reason safe to log (never the token). */
export class SnapshotFetchError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'SnapshotFetchError';
  }
}

/**
 * `fetchSnapshot` for a data plane running apart from its control plane: GET
 * `<controlPlaneUrl>/internal/cluster/snapshot` with the cluster token as a bearer token. Bounded
 * in time (connect, whole response) and size. The body is returned as parsed JSON (parsed in
 * slices); the follower checks its shape. Throws on bad arguments, naming the one at fault.
 */
export function createHttpSnapshotFetcher(controlPlaneUrl: string, clusterToken: string, options: HttpSnapshotFetcherOptions = {}): () => Promise<RouteSnapshot> {
  let base: URL;
  try {
    base = new URL(controlPlaneUrl);
  } catch {
    throw new TypeError('controlPlaneUrl must be an absolute http or https URL');
  }
  if ((base.protocol !== 'http:' && base.protocol !== 'https:') || base.hostname === '') {
    throw new TypeError('controlPlaneUrl must be an absolute http or https URL');
  }
  if (base.username !== '' || base.password !== '') throw new TypeError('controlPlaneUrl must not carry credentials; the cluster token authenticates');
  if (typeof clusterToken !== 'string' || clusterToken.length === 0 || /[\r\n]/.test(clusterToken)) {
    throw new TypeError('clusterToken must be a non-empty string without line breaks');
  }
  const { connectTimeoutMs, responseTimeoutMs, maxBodyBytes } = { ...DEFAULTS, ...definedOnly(options) };
  const target = new URL(`${base.pathname.replace(/\/+$/, '')}${SNAPSHOT_PATH}`, base);
  const transport = target.protocol === 'https:' ? https : http;
  const origin = target.origin;

  return () =>
    new Promise<RouteSnapshot>((resolve, reject) => {
      let settled = false;
      const fail = (message: string, status?: number): void => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        clearTimeout(connectDeadline);
        req.destroy();
        reject(new SnapshotFetchError(`snapshot from ${origin}: ${message}`, status));
      };
      const req = transport.request(target, {
        method: 'GET',
        headers: { authorization: `Bearer ${clusterToken}`, accept: 'application/json' },
        // Fetches are rare (a gap, a reconnect, silence): a fresh connection each time never
        // meets a pooled socket the control plane closed while it restarted.
        agent: false,
        ...(options.ca === undefined ? {} : { ca: options.ca }),
      });
      const connectDeadline = setTimeout(() => fail(`no connection within ${connectTimeoutMs} ms`), connectTimeoutMs);
      const deadline = setTimeout(() => fail(`no complete answer within ${responseTimeoutMs} ms`), connectTimeoutMs + responseTimeoutMs);
      req.on('socket', (socket) => {
        // A reused keep-alive socket is already connected.
        if (!socket.connecting) clearTimeout(connectDeadline);
        else socket.once('connect', () => clearTimeout(connectDeadline));
      });
      req.on('error', (error: NodeJS.ErrnoException) => fail(error.code ?? error.message));
      req.on('response', (res) => {
        const status = res.statusCode ?? 0;
        if (status !== 200) {
          res.resume();
          const why = status === 401 ? 'the cluster token was refused (401)' : status === 404 ? 'not found (404): is CLUSTER_TOKEN set on the control plane?' : `status ${status}`;
          fail(why, status);
          return;
        }
        const declared = Number(res.headers['content-length']);
        if (Number.isFinite(declared) && declared > maxBodyBytes) {
          fail(`body larger than ${maxBodyBytes} bytes`);
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBodyBytes) fail(`body larger than ${maxBodyBytes} bytes`);
          else chunks.push(chunk);
        });
        res.on('error', (error: NodeJS.ErrnoException) => fail(error.code ?? error.message));
        res.on('close', () => {
          if (!res.complete) fail('connection closed before the end of the body');
        });
        res.on('end', () => {
          if (settled) return;
          // In slices: a snapshot of 10,000 routes is megabytes of JSON (see parseJsonSteps).
          runInSlices(parseJsonSteps(Buffer.concat(chunks).toString('utf8'))).then(
            (body) => {
              if (settled) return;
              settled = true;
              clearTimeout(deadline);
              clearTimeout(connectDeadline);
              resolve(body as RouteSnapshot);
            },
            () => fail('the body is not JSON'),
          );
        });
      });
      req.end();
    });
}

function definedOnly(options: HttpSnapshotFetcherOptions): Partial<typeof DEFAULTS> {
  const out: Partial<typeof DEFAULTS> = {};
  if (options.connectTimeoutMs !== undefined) out.connectTimeoutMs = options.connectTimeoutMs;
  if (options.responseTimeoutMs !== undefined) out.responseTimeoutMs = options.responseTimeoutMs;
  if (options.maxBodyBytes !== undefined) out.maxBodyBytes = options.maxBodyBytes;
  return out;
}
