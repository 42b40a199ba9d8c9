import type { AnalysisContext } from './analysis-context';
import type { AnalysisFindings, LikelyCause, SuggestedAction } from './analysis-result';

/** Event kinds that say the upstream fails, and what to suggest for them. */
const FAILURE_KINDS = ['ERROR_RATE_SPIKE', 'CIRCUIT_BREAKER_CANDIDATE', 'circuit_breaker.opened'];
const SLOW_KINDS = ['LATENCY_ANOMALY'];
const CAPACITY_KINDS = ['CAPACITY_WARNING'];
/** A change this long before the first event is a suspect. */
const SUSPECT_CHANGE_MS = 60 * 60_000;
const SUGGESTED_HOLD_SECONDS = 300;

function confidenceOf(text: string): number {
  const match = /confidence ([0-9.]+)/.exec(text);
  const value = match === null ? Number.NaN : Number(match[1]);
  return Number.isFinite(value) && value >= 0 && value <= 1 ? value : 0.5;
}

const round = (n: number): number => Math.round(n * 100) / 100;

/**
 * The deterministic analyzer: the same context always gives the same answer. It correlates the
 * events by kind with the configuration changes shortly before them; its confidences are modest
 * on purpose (it knows correlations, not causes).
 */
export function analyzeBuiltIn(context: AnalysisContext): AnalysisFindings {
  const causes: LikelyCause[] = [];
  const suggestions: SuggestedAction[] = [];
  const routes = context.incident?.routes ?? [];
  const firstEventAt = context.events.length === 0 ? Date.parse(context.window.to) : Math.min(...context.events.map((e) => Date.parse(e.at)));

  for (const change of context.configChanges) {
    const at = Date.parse(change.at);
    if (at > firstEventAt || firstEventAt - at > SUSPECT_CHANGE_MS) continue;
    const onAffected = change.target !== null && routes.includes(change.target);
    causes.push({
      cause: `configuration change ${change.action}${change.target === null ? '' : ` on ${change.target}`} by ${change.actor} shortly before the first event`,
      confidence: onAffected ? 0.6 : 0.3,
      evidence: [{ kind: 'config-change', ref: change.id, detail: `${change.action} at ${change.at}` }, ...context.events.slice(0, 1).map((e) => ({ kind: 'event' as const, ref: e.id, detail: e.type }))],
    });
  }

  const groups: Array<[readonly string[], string]> = [
    [FAILURE_KINDS, `the upstream of ${routes.join(', ') || 'the affected routes'} fails`],
    [SLOW_KINDS, `the upstream of ${routes.join(', ') || 'the affected routes'} is slow`],
    [CAPACITY_KINDS, 'the gateway or its upstreams run out of capacity'],
  ];
  for (const [kinds, cause] of groups) {
    const matched = context.events.filter((e) => kinds.includes(e.type));
    if (matched.length === 0) continue;
    const confidence = round(Math.min(0.8, Math.max(...matched.map((e) => confidenceOf(e.text))) * 0.8));
    causes.push({ cause, confidence, evidence: matched.slice(-5).map((e) => ({ kind: 'event' as const, ref: e.id, detail: e.type })) });
    if (kinds === FAILURE_KINDS) for (const routeId of routes) suggestions.push({ type: 'CIRCUIT_BREAKER', operation: 'OPEN', duration: SUGGESTED_HOLD_SECONDS, routeId });
  }
  if (causes.length === 0 && context.events.length > 0) {
    causes.push({ cause: 'an anomaly the built-in analyzer cannot classify', confidence: 0.1, evidence: context.events.slice(-3).map((e) => ({ kind: 'event' as const, ref: e.id, detail: e.type })) });
  }
  causes.sort((a, b) => b.confidence - a.confidence || a.cause.localeCompare(b.cause));
  const top = causes[0];
  const summary =
    context.events.length === 0
      ? `No events between ${context.window.from} and ${context.window.to}: nothing to explain.`
      : `${context.events.length} event(s)${routes.length === 0 ? '' : ` on ${routes.join(', ')}`} between ${context.window.from} and ${context.window.to}; most likely ${top?.cause ?? 'unknown'} (confidence ${top?.confidence ?? 0}).`;
  return { summary, causes, suggestedActions: suggestions };
}
