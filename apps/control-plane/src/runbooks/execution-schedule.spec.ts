import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nextDueAt } from './execution-schedule';
import type { ActionResult } from './runbook-execution.entity';

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
const held = (followUpSecond: number, extra: Partial<ActionResult> = {}): ActionResult => ({
  index: 0,
  type: 'CIRCUIT_BREAKER',
  action: { type: 'CIRCUIT_BREAKER' },
  status: 'succeeded',
  description: '',
  outcome: { status: 'succeeded', message: '', followUpAt: at(followUpSecond).toISOString(), undo: { routes: ['a'] } },
  ...extra,
});

test('the next due instant: expiry while pending, else the earliest follow-up or rollback; null when nothing is left', () => {
  const cases: Array<[string, Parameters<typeof nextDueAt>[0], Date | null]> = [
    ['pending: its expiry', { status: 'pending_approval', expiresAt: at(30), rollbackAt: null, results: { actions: [] } }, at(30)],
    ['a follow-up before the rollback', { status: 'succeeded', expiresAt: null, rollbackAt: at(50), results: { actions: [held(20)] } }, at(20)],
    ['a rollback before the follow-up', { status: 'succeeded', expiresAt: null, rollbackAt: at(10), results: { actions: [held(20)] } }, at(10)],
    ['followed up: nothing left to undo', { status: 'succeeded', expiresAt: null, rollbackAt: at(50), results: { actions: [held(20, { followedUp: { at: '', message: '' } })] } }, null],
    ['undone: nothing left', { status: 'rolled_back', expiresAt: null, rollbackAt: at(10), results: { actions: [held(20, { undone: { at: '', message: '' } })] } }, null],
    ['rejected: nothing', { status: 'rejected', expiresAt: at(30), rollbackAt: null, results: { actions: [] } }, null],
  ];
  for (const [what, execution, expected] of cases) assert.deepEqual(nextDueAt(execution), expected, what);
});
