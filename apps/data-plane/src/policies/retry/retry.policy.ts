import { performance } from 'node:perf_hooks';
import type { RetryConfig } from '@gateway/route-model';
import { isGatewayError } from '../../engine/error-catalogue';
import type { Exchange } from '../../engine/exchange';
import type { PolicyFactory, UpstreamCall, UpstreamCallback } from '../../engine/policy';
import type { CounterDefinition } from '../../engine/ports';

/** Decision 16: methods retried without being listed. */
const IDEMPOTENT = ['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE'];
const RETRY_STATUSES = new Set([502, 503, 504]);
/** Connection errors: nothing was answered. A request timeout is not retried (it used the budget). */
const RETRY_CODES = new Set(['UPSTREAM_ERROR', 'UPSTREAM_CONNECT_TIMEOUT']);
/** Bodies above this are streamed, not held for replay, and such requests are not retried. */
export const MAX_REPLAY_BODY_BYTES = 1024 * 1024;

export interface BackoffSettings {
  initialDelay: number;
  maxDelay: number;
  multiplier: number;
  jitter: boolean;
}

/** Delay before retry `n` (1-based): initial · multiplier^(n-1), capped; full jitter when enabled. */
export function backoffDelay(settings: BackoffSettings, retry: number, random: () => number = Math.random): number {
  const base = Math.min(settings.maxDelay, settings.initialDelay * settings.multiplier ** (retry - 1));
  return settings.jitter ? Math.round(base / 2 + (random() * base) / 2) : base;
}

function backoffOf(config: RetryConfig): BackoffSettings {
  return { initialDelay: config.initialDelay ?? 100, maxDelay: config.maxDelay ?? 2000, multiplier: config.multiplier ?? 2, jitter: config.jitter ?? true };
}

/** How the request body can be sent more than once: none, small enough to hold, or not at all. */
function bodyKind(exchange: Exchange, maxBytes: number): 'none' | 'buffer' | 'stream' {
  const headers = exchange.req.headers;
  if (headers['transfer-encoding'] !== undefined) return 'stream';
  const length = headers['content-length'];
  if (length === undefined || length === '0') return 'none';
  return Number(length) <= maxBytes ? 'buffer' : 'stream';
}

function readBody(exchange: Exchange, then: (ok: boolean) => void): void {
  const { req } = exchange;
  const chunks: Buffer[] = [];
  let settled = false;
  const finish = (ok: boolean): void => {
    if (settled) return;
    settled = true;
    if (ok) exchange.bufferedBody = Buffer.concat(chunks);
    then(ok);
  };
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.once('end', () => finish(true));
  req.once('error', () => finish(false));
  req.once('close', () => finish(req.complete));
}

/**
 * `retry` (decision 16): idempotent methods (plus `retry.methods`) are sent again after a connection
 * error or a 502/503/504, with exponential backoff, while what is left of `timeout.request` allows
 * the wait; never once the response started (the answer is only handed on after this decision).
 * Bodies up to MAX_REPLAY_BODY_BYTES are held for replay; larger or chunked bodies are not retried.
 * Sits inside the circuit breaker and outside the per-attempt timeout.
 */
const UPSTREAM_RETRIES: CounterDefinition = {
  name: 'gateway_upstream_retries_total',
  help: 'Upstream attempts after the first one (retry policy), by route id',
  labelNames: ['route'],
};

export const retryPolicy: PolicyFactory = {
  key: 'retry',
  scope: 'route',
  configures: 'retry',
  order: 700,
  metrics: [UPSTREAM_RETRIES],
  // Nothing of one route is kept (the counter's label is read from the exchange): routes with the
  // same retry settings and request timeout share one policy.
  shareKey: (route) => `${JSON.stringify(route.retry ?? null)}/${route.timeout.request}`,
  create: (route, env) => {
    const config = route?.retry;
    if (route === undefined || config === undefined || !config.enabled || config.attempts <= 0) return null;
    const methods = new Set([...IDEMPOTENT, ...(config.methods ?? [])]);
    const retries = config.attempts;
    const backoff = backoffOf(config);
    const budgetMs = route.timeout.request;
    const maxBody = Math.min(MAX_REPLAY_BODY_BYTES, env.settings.maxBodySize);
    const retried = env.services.metrics.counter(UPSTREAM_RETRIES);

    const withRetries = (next: UpstreamCall, exchange: Exchange, done: UpstreamCallback): void => {
      let retry = 0;
      const attempt = (): void => {
        if (exchange.clientAborted) return;
        next(exchange, onOutcome);
      };
      const onOutcome: UpstreamCallback = (error, response) => {
        const retryable =
          error !== null ? isGatewayError(error) && RETRY_CODES.has(error.code) : RETRY_STATUSES.has((response as NonNullable<typeof response>).statusCode);
        if (!retryable || retry >= retries || exchange.clientAborted || exchange.res.headersSent) {
          done(error, response);
          return;
        }
        const delay = backoffDelay(backoff, retry + 1);
        // The next attempt must start (and have some time) inside the route's request timeout.
        if (performance.now() + delay >= exchange.startedAt + budgetMs) {
          done(error, response);
          return;
        }
        retry += 1;
        // The discarded answer is drained so its socket goes back to the pool.
        response?.resume();
        retried.labels(exchange.route?.id ?? '').inc();
        setTimeout(attempt, delay);
      };
      attempt();
    };

    return {
      wrapUpstream: (next) => (exchange, done) => {
        if (!methods.has(exchange.method)) {
          next(exchange, done);
          return;
        }
        const body = exchange.bufferedBody === undefined ? bodyKind(exchange, maxBody) : 'none';
        if (body === 'stream') {
          next(exchange, done);
          return;
        }
        if (body === 'none') {
          withRetries(next, exchange, done);
          return;
        }
        readBody(exchange, (ok) => {
          if (ok) withRetries(next, exchange, done);
        });
      },
    };
  },
};
