#!/usr/bin/env node
// Runs the compiled tests with node's own test runner (one summary for the whole run, which CI
// reads). Unit tests are `*.spec.js` beside their units in each project's dist; end-to-end tests
// are `test/dist/**/*.e2e.js`.
//   node tools/scripts/run-tests.mjs [--unit | --e2e] [--project <dir>] [name-filter ...]
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const args = process.argv.slice(2);
const only = args.includes('--unit') ? 'unit' : args.includes('--e2e') ? 'e2e' : 'all';
const projectIndex = args.indexOf('--project');
const project = projectIndex >= 0 ? args[projectIndex + 1] : undefined;
const filters = args.filter((a, i) => !a.startsWith('--') && (projectIndex === -1 || i !== projectIndex + 1));

function walk(dir, suffix, out) {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules') continue;
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) walk(full, suffix, out);
    else if (name.endsWith(suffix)) out.push(full);
  }
  return out;
}

const files = [];
const unitRoots = ['libs', 'apps', 'tools'].flatMap((group) =>
  existsSync(path.join(root, group)) ? readdirSync(path.join(root, group)).map((p) => path.join(root, group, p, 'dist')) : [],
);
if (only !== 'e2e') for (const dir of unitRoots) walk(dir, '.spec.js', files);
if (only !== 'unit') walk(path.join(root, 'test', 'dist'), '.e2e.js', files);

const selected = files
  .filter((f) => !project || f.startsWith(path.join(root, project) + path.sep))
  .filter((f) => filters.length === 0 || filters.some((needle) => f.includes(needle)))
  .sort();
if (selected.length === 0) {
  console.error('run-tests: no test files found (did the build run?)');
  process.exit(1);
}
const concurrency = process.env.TEST_CONCURRENCY ?? '2';
// A guard against hangs, not a speed check: the README quick-start and image-layout files install
// and build a fresh copy, which takes minutes on a loaded 2-core machine, and the admin-ops browser
// file waits out two full admin-tier windows and browses every page for two minutes (about 330 s
// on a busy machine; it timed out at 300 s in CI once the upstreams pages were added).
const result = spawnSync(
  process.execPath,
  ['--enable-source-maps', '--test', `--test-concurrency=${concurrency}`, '--test-timeout=600000', ...selected],
  { stdio: 'inherit', cwd: root },
);
process.exit(result.status ?? 1);
