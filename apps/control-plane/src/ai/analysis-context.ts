import type { RouteMetrics } from './metrics-excerpt';

/** The compact context an analysis works on (and, redacted, what a provider receives). */
export interface AnalysisContext {
  window: { from: string; to: string };
  incident: { id: string; title: string; status: string; severity: string; routes: string[]; upstreams: string[]; hypothesis: string | null } | null;
  /** Newest last; at most MAX_EVENTS. */
  events: Array<{ id: string; type: string; at: string; text: string }>;
  /** Audit entries of configuration changes in the window (and the hour before it). */
  configChanges: Array<{ id: string; at: string; action: string; target: string | null; actor: string }>;
  /** The affected routes' rps, error % and p95/p99 over the window and in slices of it (metrics-excerpt.ts). */
  metrics: RouteMetrics[];
}

export const MAX_EVENTS = 100;
export const MAX_CHANGES = 50;
