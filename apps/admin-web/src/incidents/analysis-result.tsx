import { percent } from '../ops/format';
import type { Analysis } from '../ops/ops-types';

/** The structured answer of POST /api/ai: which analyzer answered, the summary, causes with evidence, suggested actions. */
export function AnalysisResult({ analysis }: { analysis: Analysis }) {
  const answeredBy = analysis.answeredBy === 'provider' ? `the AI provider${analysis.model != null ? ` (${analysis.model})` : ''}` : 'the built-in analyzer';
  return (
    <section class="analysis" aria-labelledby="analysis-title">
      <h3 id="analysis-title">Analysis</h3>
      <p data-testid="answered-by">
        Answered by {answeredBy}
        {analysis.fallbackReason != null && ` (fallback: ${analysis.fallbackReason})`}
        {analysis.costUsd !== undefined && analysis.costUsd > 0 && `, cost $${analysis.costUsd.toFixed(5)}`}.
      </p>
      <p class="summary">{analysis.summary}</p>
      <h4>Likely causes</h4>
      {(analysis.causes ?? []).length === 0 ? (
        <p>No cause found.</p>
      ) : (
        <ol class="causes">
          {(analysis.causes ?? []).map((cause, index) => (
            <li key={index}>
              <strong>{cause.cause}</strong> — confidence {percent(cause.confidence)}
              {(cause.evidence ?? []).length > 0 && (
                <ul>
                  {(cause.evidence ?? []).map((evidence, e) => (
                    <li key={e}>
                      {evidence.kind}: {evidence.detail} {evidence.ref !== undefined && <code>{evidence.ref}</code>}
                    </li>
                  ))}
                </ul>
              )}
            </li>
          ))}
        </ol>
      )}
      <h4>Suggested actions</h4>
      <p class="notice">Suggestions only: nothing runs until a runbook with these actions does.</p>
      {(analysis.suggestedActions ?? []).length === 0 ? <p>None.</p> : <pre class="suggested-actions">{JSON.stringify(analysis.suggestedActions, null, 2)}</pre>}
    </section>
  );
}
