/*
 * The event objects of spec 6.1 and the detector kinds that raise them. These are what the event
 * layer stores, streams and delivers (a webhook's `data` is one of these, decision 24's envelope
 * around it).
 */

/** The detector kinds of spec 6.1, in the order they are evaluated. */
export const DETECTOR_KINDS = ['ERROR_RATE_SPIKE', 'LATENCY_ANOMALY', 'COST_ALERT', 'CIRCUIT_BREAKER_CANDIDATE', 'CAPACITY_WARNING', 'RECOVERY_SIGNAL'] as const;
export type DetectorKind = (typeof DETECTOR_KINDS)[number];

export const EVENT_SEVERITIES = ['INFO', 'WARNING', 'CRITICAL'] as const;
export type EventSeverity = (typeof EVENT_SEVERITIES)[number];

export const TRENDS = ['RISING', 'FALLING', 'STABLE'] as const;
export type Trend = (typeof TRENDS)[number];

/** `data` of a spec 6.1 event: the measured value against the trigger level. */
export interface DetectorEventData {
  current_value: number;
  threshold: number;
  /** current_value / threshold (above 1 when breaching). */
  breach_ratio: number;
  trend: Trend;
}

/** A spec 6.1 event object: exactly these fields (context is kind-specific). */
export interface DetectorEvent {
  type: DetectorKind;
  severity: EventSeverity;
  summary: string;
  /** 0..1; what it means is stated per detector (docs/events.md). */
  confidence: number;
  data: DetectorEventData;
  context?: Record<string, unknown>;
}

export function isDetectorKind(value: unknown): value is DetectorKind {
  return typeof value === 'string' && (DETECTOR_KINDS as readonly string[]).includes(value);
}
