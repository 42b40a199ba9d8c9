import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import type { HealthCheckStatus, HealthIndicator } from '@gateway/events';
import { outboundConnectOptions, OutboundTargetRefusedError, type OutboundAddressRule } from '@gateway/outbound-target';
import { tlsClientOptions, type UpstreamTls } from '../../engine/upstream-tls';

export interface HealthCheckSettings {
  readonly url: string;
  readonly interval: number;
  readonly timeout: number;
  readonly healthyThreshold: number;
  readonly unhealthyThreshold: number;
  readonly expectedStatus: number;
  readonly expectedBody: string | undefined;
}

/** Bytes of a check response read at most (the expected text must be within them); the rest is never read. */
const MAX_CHECK_BODY = 64 * 1024;

/**
 * Active checks of one target (spec 2.4, 3.3): one check at a time, the next one `interval` after
 * the previous finished (never overlapping), timers unref'd so they never hold the process.
 * Unhealthy after `unhealthyThreshold` consecutive failures, Healthy after `healthyThreshold`
 * consecutive successes; Degraded while a healthy target fails below the threshold.
 * A check is a request made on an admin's behalf: a target the outbound-target rule refuses (cloud
 * metadata, link-local, checked on the resolved address) fails without a packet sent, saying why.
 * An https check uses the TLS settings of the upstream it checks (`tls`: the same CA, verification
 * and SNI as proxied requests, through tlsClientOptions); when that upstream's CA file did not load,
 * every check fails saying so (naming the field, not the file), without a handshake (docs/tls.md).
 * `timeout` bounds the whole check, connection included; at most MAX_CHECK_BODY bytes are read.
 */
export class HealthChecker {
  private state: HealthIndicator = 'Unknown';
  private successes = 0;
  private failures = 0;
  private lastCheck: number | undefined;
  private latency: number | undefined;
  private lastError: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private inFlight: http.ClientRequest | undefined;
  private stopped = false;

  constructor(
    readonly settings: HealthCheckSettings,
    private readonly onChange: (checker: HealthChecker) => void,
    private readonly outbound: OutboundAddressRule,
    /** TLS settings of the checked upstream (https checks only); undefined: verified against node's roots. */
    readonly tls?: UpstreamTls,
  ) {}

  start(): void {
    this.schedule(0);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.inFlight?.destroy();
  }

  get indicator(): HealthIndicator {
    return this.state;
  }

  status(): HealthCheckStatus {
    return {
      status: this.state,
      url: this.settings.url,
      lastCheck: this.lastCheck === undefined ? null : new Date(this.lastCheck).toISOString(),
      consecutiveSuccesses: this.successes,
      consecutiveFailures: this.failures,
      latencyMs: this.latency === undefined ? null : Math.round(this.latency),
      lastError: this.lastError ?? null,
    };
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      try {
        this.check();
      } catch (error) {
        // A check must never take the process down (it runs on a timer, outside any request).
        this.lastCheck = Date.now();
        this.record(error instanceof Error ? error.message : String(error));
        this.schedule(this.settings.interval);
      }
    }, ms);
    this.timer.unref();
  }

  private check(): void {
    const startedAt = performance.now();
    const url = new URL(this.settings.url);
    const secure = url.protocol === 'https:';
    if (secure && this.tls?.refusal !== undefined) {
      // Its CA file did not load: no handshake with other roots, as for the upstream's requests.
      this.lastCheck = Date.now();
      this.record(this.tls.refusalSummary ?? this.tls.refusal);
      this.schedule(this.settings.interval);
      return;
    }
    // Throws for a refused IP literal: schedule() records it as this check's failure.
    const connect = outboundConnectOptions(this.outbound, url);
    const options = { method: 'GET', agent: false, headers: { 'user-agent': 'gateway-health-check' }, ...connect };
    const request = secure ? https.request(url, { ...options, ...tlsClientOptions(url.hostname.replace(/^\[|\]$/g, ''), this.tls) }) : http.request(url, options);
    this.inFlight = request;
    let finished = false;
    const finish = (error: string | undefined): void => {
      if (finished) return;
      finished = true;
      clearTimeout(deadline);
      this.inFlight = undefined;
      if (!request.destroyed) request.destroy();
      if (this.stopped) return;
      this.latency = performance.now() - startedAt;
      this.lastCheck = Date.now();
      this.record(error);
      this.schedule(this.settings.interval);
    };
    const deadline = setTimeout(() => finish(`timed out after ${this.settings.timeout} ms`), this.settings.timeout);
    deadline.unref();
    request.on('error', (error: NodeJS.ErrnoException) => finish(error instanceof OutboundTargetRefusedError ? error.message : (error.code ?? 'request failed')));
    request.on('response', (response) => {
      if (response.statusCode !== this.settings.expectedStatus) {
        finish(`status ${response.statusCode ?? 0}, expected ${this.settings.expectedStatus}`);
        return;
      }
      const expected = this.settings.expectedBody;
      if (expected === undefined) {
        finish(undefined);
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      const judge = (): void => finish(Buffer.concat(chunks).subarray(0, MAX_CHECK_BODY).toString('utf8').includes(expected) ? undefined : 'expected body text not found');
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        // Judged on the first MAX_CHECK_BODY bytes: an endless body cannot hold the check or memory.
        if (size >= MAX_CHECK_BODY) judge();
      });
      response.on('error', () => finish('response failed'));
      response.on('end', judge);
    });
    request.end();
  }

  private record(error: string | undefined): void {
    const before = this.state;
    this.lastError = error;
    if (error === undefined) {
      this.successes += 1;
      this.failures = 0;
      if (this.successes >= this.settings.healthyThreshold) this.state = 'Healthy';
      else if (this.state === 'Degraded') this.state = 'Healthy';
    } else {
      this.failures += 1;
      this.successes = 0;
      if (this.failures >= this.settings.unhealthyThreshold) this.state = 'Unhealthy';
      else if (this.state === 'Healthy' || this.state === 'Unknown') this.state = 'Degraded';
    }
    if (this.state !== before) this.onChange(this);
  }
}
