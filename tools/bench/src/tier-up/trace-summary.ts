/**
 * Reads V8's `--trace-opt --trace-deopt` lines: how many TurboFan compilations and deoptimizations
 * each function had, and why it was deoptimized. Lines from several writers can be glued together
 * in the pipe, so every occurrence in a line is counted, not only one a line.
 */

const COMPILED = /\[completed compiling 0x[0-9a-f]+ <JSFunction (?:([^ >]+) )?\(sfi[^>]*> \(target TURBOFAN\)/g;
const DEOPTIMIZED = /\[bailout \(kind: ([^,]+), reason: ([^)]*)\): begin\. deoptimizing 0x[0-9a-f]+ <JSFunction (?:([^ >]+) )?\(sfi/g;

interface FunctionEvents {
  compiled: number;
  deoptimized: number;
  reasons: Set<string>;
}

/** TurboFan compilations in these lines (for a count per block of requests). */
export function countCompilations(lines: readonly string[]): number {
  let count = 0;
  for (const line of lines) count += [...line.matchAll(COMPILED)].length;
  return count;
}

/** A few lines: totals, then every function with its compilations, deoptimizations and their reasons. */
export function summarizeTierUp(lines: readonly string[]): string {
  const byFunction = new Map<string, FunctionEvents>();
  const of = (name: string): FunctionEvents => {
    const key = name === '' ? '(anonymous)' : name;
    let events = byFunction.get(key);
    if (events === undefined) {
      events = { compiled: 0, deoptimized: 0, reasons: new Set() };
      byFunction.set(key, events);
    }
    return events;
  };
  for (const line of lines) {
    for (const match of line.matchAll(COMPILED)) of(match[1] ?? '').compiled += 1;
    for (const match of line.matchAll(DEOPTIMIZED)) {
      const events = of(match[3] ?? '');
      events.deoptimized += 1;
      events.reasons.add(`${match[1] ?? ''}: ${match[2] ?? ''}`);
    }
  }
  const rows = [...byFunction.entries()].sort((a, b) => b[1].compiled + b[1].deoptimized - (a[1].compiled + a[1].deoptimized));
  const compiled = rows.reduce((sum, [, e]) => sum + e.compiled, 0);
  const deoptimized = rows.reduce((sum, [, e]) => sum + e.deoptimized, 0);
  return [
    `  TurboFan compilations: ${compiled}, deoptimizations: ${deoptimized}`,
    ...rows.map(([name, e]) => `  ${name}: compiled ${e.compiled}, deoptimized ${e.deoptimized}${e.reasons.size > 0 ? ` (${[...e.reasons].join('; ')})` : ''}`),
  ].join('\n');
}
