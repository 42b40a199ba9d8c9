import type { UpstreamOutlierDetection } from '@gateway/route-model';
import type { UpstreamEndpoint } from './upstream-endpoint';

/**
 * Envoy's outlier detection, consecutive-failures flavour: a connection error, a timeout or a 5xx
 * from an endpoint counts a failure, any other answer resets the count. At `consecutiveFailures`
 * the endpoint is ejected for baseEjectionTime times the number of its ejections, capped at
 * maxEjectionTime; it comes back on its own when that time is over (no probe needed: the next
 * failure ejects it again, for longer). An endpoint that stayed in for maxEjectionTime starts over
 * from one ejection. At most maxEjectionPercent of the endpoints are out at once, but always at
 * least one may be (as Envoy does), so a two-target upstream can still eject its broken half.
 */
export class OutlierDetector {
  constructor(private readonly settings: UpstreamOutlierDetection) {}

  /** Records one outcome; true when it ejected the endpoint. */
  record(endpoint: UpstreamEndpoint, failed: boolean, endpoints: readonly UpstreamEndpoint[], now: number): boolean {
    if (!failed) {
      endpoint.consecutiveFailures = 0;
      return false;
    }
    endpoint.consecutiveFailures += 1;
    const s = this.settings;
    if (!s.enabled || endpoint.consecutiveFailures < s.consecutiveFailures || endpoint.isEjected(now)) return false;
    if (this.ejectedCount(endpoints, now) >= this.maxEjected(endpoints.length)) return false;
    // Back long enough to have earned a fresh start (Envoy decrements its multiplier over time).
    if (endpoint.ejectedUntil !== 0 && now - endpoint.ejectedUntil > s.maxEjectionTime) endpoint.ejections = 0;
    endpoint.ejections += 1;
    endpoint.ejectedUntil = now + Math.min(s.baseEjectionTime * endpoint.ejections, s.maxEjectionTime);
    endpoint.consecutiveFailures = 0;
    return true;
  }

  private maxEjected(count: number): number {
    if (this.settings.maxEjectionPercent === 0) return 0;
    return Math.max(1, Math.floor((count * this.settings.maxEjectionPercent) / 100));
  }

  private ejectedCount(endpoints: readonly UpstreamEndpoint[], now: number): number {
    let ejected = 0;
    for (const endpoint of endpoints) if (endpoint.isEjected(now)) ejected += 1;
    return ejected;
  }
}
