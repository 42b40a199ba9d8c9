/** What POST /api/ai answers, from the provider or the built-in analyzer alike (docs/ai.md). */
export interface Evidence {
  kind: 'event' | 'metric' | 'config-change';
  /** An event id, an audit entry id, or a metric name. */
  ref: string;
  detail?: string;
}

export interface LikelyCause {
  cause: string;
  confidence: number;
  evidence: Evidence[];
}

/** A runbook action as the model or the analyzer suggests it: never run by the analysis. */
export interface SuggestedAction {
  type: string;
  [param: string]: unknown;
}

export interface AnalysisFindings {
  summary: string;
  causes: LikelyCause[];
  suggestedActions: SuggestedAction[];
}

export interface AnalysisResult extends AnalysisFindings {
  answeredBy: 'provider' | 'built-in';
  /** Why the built-in analyzer answered when a provider is configured (timeout, malformed answer, budget). */
  fallbackReason: string | null;
  model: string | null;
  costUsd: number;
  incidentId: string | null;
  window: { from: string; to: string };
}

const EVIDENCE_KINDS = ['event', 'metric', 'config-change'];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const text = (value: unknown, max: number): value is string => typeof value === 'string' && value.trim().length > 0 && value.length <= max;

/**
 * The model's answer checked before use: the structure, bounds and types of every field. A
 * reason when it is not usable (then the built-in analyzer answers instead).
 */
export function readFindings(raw: unknown): { ok: true; findings: AnalysisFindings } | { ok: false; reason: string } {
  if (!isRecord(raw)) return { ok: false, reason: 'the answer is not a JSON object' };
  const { summary, causes, suggestedActions = [] } = raw;
  if (!text(summary, 4000)) return { ok: false, reason: 'summary must be a string of 1 to 4000 characters' };
  if (!Array.isArray(causes) || causes.length > 10) return { ok: false, reason: 'causes must be an array of at most 10' };
  const read: LikelyCause[] = [];
  for (const [i, c] of causes.entries()) {
    if (!isRecord(c) || !text(c['cause'], 1000)) return { ok: false, reason: `causes[${i}].cause must be a string of 1 to 1000 characters` };
    const confidence = c['confidence'];
    if (typeof confidence !== 'number' || !(confidence >= 0 && confidence <= 1)) return { ok: false, reason: `causes[${i}].confidence must be a number from 0 to 1` };
    const evidence = c['evidence'];
    if (!Array.isArray(evidence) || evidence.length > 20) return { ok: false, reason: `causes[${i}].evidence must be an array of at most 20` };
    const items: Evidence[] = [];
    for (const [j, e] of evidence.entries()) {
      if (!isRecord(e) || !EVIDENCE_KINDS.includes(e['kind'] as string) || !text(e['ref'], 200) || (e['detail'] !== undefined && !text(e['detail'], 1000))) {
        return { ok: false, reason: `causes[${i}].evidence[${j}] must be { kind: event | metric | config-change, ref, detail? }` };
      }
      items.push({ kind: e['kind'] as Evidence['kind'], ref: e['ref'] as string, ...(e['detail'] === undefined ? {} : { detail: e['detail'] as string }) });
    }
    read.push({ cause: c['cause'] as string, confidence, evidence: items });
  }
  if (!Array.isArray(suggestedActions) || suggestedActions.length > 10) return { ok: false, reason: 'suggestedActions must be an array of at most 10' };
  for (const [i, a] of suggestedActions.entries()) {
    if (!isRecord(a) || typeof a['type'] !== 'string' || !/^[A-Z_]{1,50}$/.test(a['type']) || JSON.stringify(a).length > 2000) return { ok: false, reason: `suggestedActions[${i}] must be a runbook action { type: CIRCUIT_BREAKER | ..., ...params }` };
  }
  return { ok: true, findings: { summary: summary as string, causes: read, suggestedActions: suggestedActions as SuggestedAction[] } };
}
