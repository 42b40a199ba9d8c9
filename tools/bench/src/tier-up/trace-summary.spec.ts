import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countCompilations, summarizeTierUp } from './trace-summary';

/** V8's own trace of a script: a named function optimised then deoptimised (a string where it saw numbers), another optimised (V8 names it after its variable). */
function traceOf(script: string): string[] {
  const run = spawnSync(process.execPath, ['--allow-natives-syntax', '--trace-opt', '--trace-deopt', '-e', script], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(run.status, 0, run.stderr);
  return run.stdout.split('\n');
}

const SCRIPT = `
function add(a, b) { return a + b; }
%PrepareFunctionForOptimization(add); add(1, 2); add(2, 3); %OptimizeFunctionOnNextCall(add); add(3, 4);
add('x', 'y');
const doubled = [function (a) { return a * 2; }][0];
%PrepareFunctionForOptimization(doubled); doubled(1); doubled(2); %OptimizeFunctionOnNextCall(doubled); doubled(3);
`;

test('counts the compilations and deoptimisations of each function in a real V8 trace, with the reason', () => {
  const lines = traceOf(SCRIPT);
  const summary = summarizeTierUp(lines);
  assert.match(summary, /TurboFan compilations: 2, deoptimizations: 1/);
  assert.match(summary, /\n {2}add: compiled 1, deoptimized 1 \(deopt-[a-z]+: [^)]+\)/);
  assert.match(summary, /\n {2}doubled: compiled 1, deoptimized 0$/m);
  assert.equal(countCompilations(lines), 2);
});

test('reads lines that two writers glued together, and functions without a name', () => {
  const [first, second] = ['add ', ''].map((name) => `[completed compiling 0x1 <JSFunction ${name}(sfi = 0x2)> (target TURBOFAN) - took 0.01, 1.0, 0.01 ms]`);
  assert.equal(countCompilations([`${first}${second}`]), 2);
  assert.match(summarizeTierUp([`${first}${second}`]), /\n {2}\(anonymous\): compiled 1, deoptimized 0/);
  assert.equal(summarizeTierUp([]), '  TurboFan compilations: 0, deoptimizations: 0');
});
