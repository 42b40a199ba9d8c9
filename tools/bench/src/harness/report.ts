import type { GoalCheck } from './types';

export function formatNumber(value: number | undefined, digits = 0): string {
  if (value === undefined || !Number.isFinite(value)) return '—';
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function formatRatio(value: number | undefined): string {
  return value === undefined || !Number.isFinite(value) ? '—' : `${value.toFixed(2)}x`;
}

export function markdownTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  const align = header.map((_, i) => (i === 0 ? '---' : '---:'));
  return [line(header), line(align), ...rows.map(line)].join('\n');
}

/** "data plane req/CPU-s ratio to minimal forwarder, 100 B body: 0.93 (goal >= 0.9; 5 rounds: 0.90–0.97): met" */
export function formatGoal(goal: GoalCheck): string {
  const verdict = goal.met !== undefined ? (goal.met ? 'met' : 'NOT met')
    : goal.interval === null ? 'no verdict (too few clean rounds for the interval: 6 pairs at least)'
    : goal.interval !== undefined ? 'no verdict (the interval reaches both sides of the goal)' : 'not measured';
  const value = goal.value === undefined ? '—' : goal.value.toFixed(2);
  const r = goal.rounds;
  const spread = r ? `; ${r.used === r.total ? `${r.total} rounds` : `${r.used} of ${r.total} rounds (the others disturbed by other processes)`}: ${r.low.toFixed(2)}–${r.high.toFixed(2)}` : '';
  const target = goal.below !== undefined ? `< ${goal.below}` : `>= ${goal.atLeast ?? '—'}`;
  const i = goal.interval;
  const interval = i ? `; ${Math.round(i.coverage * 1000) / 10} % interval of the median over the clean rounds ${i.low.toFixed(2)}–${i.high.toFixed(2)}` : '';
  return `${goal.description}: ${value} (goal ${target}${spread}${interval}): ${verdict}`;
}
