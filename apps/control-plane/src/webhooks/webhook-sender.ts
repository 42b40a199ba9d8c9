import http from 'node:http';
import https from 'node:https';
import { outboundConnectOptions, type OutboundAddressRule, type Resolver } from '@gateway/outbound-target';

/** How much of a receiver's answer is kept with the attempt (and read at all). */
export const RESPONSE_EXCERPT_BYTES = 2048;

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface SenderOptions {
  /** The webhook target rule (webhook-target.provider.ts). */
  rule: OutboundAddressRule;
  /** The whole attempt: connect, send, answer (Standard Webhooks: 15-30 s). */
  timeoutMs: number;
  /** Tests: a resolver in place of dns.lookup (DNS-rebinding test). */
  resolve?: Resolver;
}

/** What one attempt produced; `ok` only for a 2xx answer (3xx counts as failure, never followed). */
export interface AttemptOutcome {
  ok: boolean;
  statusCode: number | null;
  latencyMs: number;
  responseExcerpt: string | null;
  error: string | null;
  /** A Retry-After the receiver sent with 429/503, in ms. */
  retryAfterMs?: number;
  /** 410 Gone: the receiver asks us to stop (the endpoint is disabled). */
  gone: boolean;
}

/**
 * One POST to a webhook receiver. The socket's `lookup` applies the target rule to the address
 * it connects to; no agent (no pooled socket reused across targets), no redirect followed, one
 * deadline for the whole exchange, and at most RESPONSE_EXCERPT_BYTES of the answer read before
 * the socket is dropped.
 */
export function sendWebhook(request: WebhookRequest, options: SenderOptions): Promise<AttemptOutcome> {
  const started = performance.now();
  const elapsed = (): number => Math.round(performance.now() - started);
  const failed = (error: string, statusCode: number | null = null, responseExcerpt: string | null = null): AttemptOutcome => ({
    ok: false,
    statusCode,
    latencyMs: elapsed(),
    responseExcerpt,
    error,
    gone: false,
  });
  let url: URL;
  let connect: ReturnType<typeof outboundConnectOptions>;
  try {
    url = new URL(request.url);
    connect = outboundConnectOptions(options.rule, url, options.resolve);
  } catch (error) {
    return Promise.resolve(failed((error as Error).message));
  }
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: AttemptOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve(outcome);
    };
    const req = transport.request(url, {
      method: 'POST',
      agent: false,
      lookup: connect.lookup,
      headers: { ...request.headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(request.body), 'user-agent': 'gateway-webhooks/1' },
    });
    const deadline = setTimeout(() => {
      req.destroy();
      finish(failed(`timed out after ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    req.on('error', (error: NodeJS.ErrnoException) => finish(failed(error.message || error.code || 'connection failed')));
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let size = 0;
      const done = (): void => {
        res.destroy();
        req.destroy();
        const excerpt = Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8');
        const ok = status >= 200 && status < 300;
        const error = ok ? null : status >= 300 && status < 400 ? `redirect (${status}) not followed` : `answered ${status}`;
        finish({ ok, statusCode: status, latencyMs: elapsed(), responseExcerpt: excerpt === '' ? null : excerpt, error, gone: status === 410, ...retryAfter(res.headers['retry-after']) });
      };
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= RESPONSE_EXCERPT_BYTES) done();
      });
      res.on('end', done);
      res.on('error', done);
    });
    req.end(request.body);
  });
}

/** Retry-After as seconds or an HTTP date (RFC 9110 10.2.3); ignored when unreadable or past. */
function retryAfter(value: string | undefined): { retryAfterMs?: number } {
  if (value === undefined) return {};
  const seconds = /^\d+$/.test(value.trim()) ? Number(value.trim()) * 1000 : Date.parse(value) - Date.now();
  return Number.isFinite(seconds) && seconds > 0 ? { retryAfterMs: seconds } : {};
}
