import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import type { HealthCheckStatus, HealthIndicator } from '@gateway/events';
import { outboundConnectOptions, OutboundTargetRefusedError, type OutboundAddressRule } from '@gateway/outbound-target';

export interface HealthCheckSettings {
  readonly url: string;
  readonly interval: number;
  readonly timeout: number;
  readonly healthyThreshold: number;
  readonly unhealthyThreshold: number;
  readonly expectedStatus: number;
  readonly expectedBody: string | undefined;
}

/** Bytes of a check response read at most (the expected text must be within them). */
const MAX_CHECK_BODY = 64 * 1024;

/**
 * Active checks of one target (spec 2.4, 3.3): one check at a time, the next one `interval` after
 * the previous finished (never overlapping), timers unref'd so they never hold the process.
 * Unhealthy after `unhealthyThreshold` consecutive failures, Healthy after `healthyThreshold`
 * consecutive successes; Degraded while a healthy target fails below the threshold.
 * A check is a request made on an admin's behalf: a target the outbound-target rule refuses (cloud
 * metadata, link-local, checked on the resolved address) fails without a packet sent, saying why.
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
    // Throws for a refused IP literal: schedule() records it as this check's failure.
    const connect = outboundConnectOptions(this.outbound, url);
    const request = (url.protocol === 'https:' ? https : http).request(url, { method: 'GET', agent: false, headers: { 'user-agent': 'gateway-health-check' }, ...connect });
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
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        if (size < MAX_CHECK_BODY) chunks.push(chunk);
        size += chunk.length;
      });
      response.on('error', () => finish('response failed'));
      response.on('end', () => {
        if (response.statusCode !== this.settings.expectedStatus) {
          finish(`status ${response.statusCode ?? 0}, expected ${this.settings.expectedStatus}`);
          return;
        }
        const expected = this.settings.expectedBody;
        if (expected !== undefined && !Buffer.concat(chunks).toString('utf8').includes(expected)) {
          finish('expected body text not found');
          return;
        }
        finish(undefined);
      });
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
