import { capacityWarningDetector } from './capacity-warning.detector';
import { circuitBreakerCandidateDetector } from './circuit-breaker-candidate.detector';
import { costAlertDetector } from './cost-alert.detector';
import type { Detector } from './detector';
import { errorRateSpikeDetector } from './error-rate-spike.detector';
import { latencyAnomalyDetector } from './latency-anomaly.detector';
import { recoverySignalDetector } from './recovery-signal.detector';

/**
 * Every detector, in evaluation order. Adding one is a new `<kind>.detector.ts` and a line here;
 * RECOVERY_SIGNAL stays last: it reads the incidents the others left open.
 */
export const DETECTORS: readonly Detector[] = [
  errorRateSpikeDetector,
  latencyAnomalyDetector,
  costAlertDetector,
  circuitBreakerCandidateDetector,
  capacityWarningDetector,
  recoverySignalDetector,
];
