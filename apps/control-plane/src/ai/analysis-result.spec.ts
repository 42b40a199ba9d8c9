import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFindings } from './analysis-result';

const good = { summary: 's', causes: [{ cause: 'c', confidence: 0.5, evidence: [{ kind: 'event', ref: 'evt_1' }] }], suggestedActions: [{ type: 'CIRCUIT_BREAKER', duration: 60 }] };

test('a model answer is used only when every field has its type and bounds', () => {
  assert.deepEqual(readFindings(good), { ok: true, findings: good });
  const refused: Array<[unknown, string]> = [
    [null, 'the answer is not a JSON object'],
    [{ ...good, summary: '' }, 'summary must be a string of 1 to 4000 characters'],
    [{ ...good, causes: 'many' }, 'causes must be an array of at most 10'],
    [{ ...good, causes: [{ cause: 'c', confidence: Number.NaN, evidence: [] }] }, 'causes[0].confidence must be a number from 0 to 1'],
    [{ ...good, causes: [{ cause: 'c', confidence: 1, evidence: [{ kind: 'rumour', ref: 'x' }] }] }, 'causes[0].evidence[0] must be { kind: event | metric | config-change, ref, detail? }'],
    [{ ...good, suggestedActions: [{ type: 'rm -rf' }] }, 'suggestedActions[0] must be a runbook action { type: CIRCUIT_BREAKER | ..., ...params }'],
  ];
  for (const [raw, reason] of refused) assert.deepEqual(readFindings(raw), { ok: false, reason }, JSON.stringify(raw));
});
