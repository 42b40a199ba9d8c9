#!/usr/bin/env node
// Reports the gzipped JavaScript the admin UI ships and fails the build over budget (issue 13):
// at most 60 KB for what the sign-in page loads and for what /admin/routes loads, 150 KB for the
// sum of every emitted chunk. Follows Vite's manifest: a page loads the entry, its static imports
// and, for a lazy page, that page's chunk and its static imports.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const KB = 1024;
const BUDGETS = { page: 60 * KB, total: 150 * KB };
const dist = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const manifest = JSON.parse(readFileSync(path.join(dist, '.vite', 'manifest.json'), 'utf8'));

const gzipped = new Map();
function sizeOf(file) {
  if (!gzipped.has(file)) gzipped.set(file, gzipSync(readFileSync(path.join(dist, file)), { level: 9 }).length);
  return gzipped.get(file);
}

/** Every JS file a chunk pulls in before it runs (itself and its static imports, transitively). */
function staticClosure(key, seen = new Set()) {
  const chunk = manifest[key];
  if (chunk === undefined || seen.has(chunk.file)) return seen;
  seen.add(chunk.file);
  for (const imported of chunk.imports ?? []) staticClosure(imported, seen);
  return seen;
}

const entryKey = Object.keys(manifest).find((key) => manifest[key].isEntry);
if (entryKey === undefined) throw new Error('bundle-size: the manifest has no entry chunk');
const entryFiles = staticClosure(entryKey);
const pageSize = (files) => [...files].filter((f) => f.endsWith('.js')).reduce((sum, f) => sum + sizeOf(f), 0);

/** A lazy page's files once it shows everything: its chunk, and what it loads on demand (uPlot for charts). */
function pageClosure(key) {
  const files = staticClosure(key);
  for (const lazyKey of manifest[key].dynamicImports ?? []) staticClosure(lazyKey, files);
  return files;
}

// The sign-in and routes list pages are in the entry; other pages are lazy chunks on top of it.
const pages = [
  { name: 'sign-in', files: entryFiles },
  { name: 'routes', files: entryFiles },
  ...Object.keys(manifest)
    .filter((key) => manifest[key].isDynamicEntry && /\.page\.tsx?$/.test(key))
    .map((key) => ({ name: path.basename(key).replace(/\.tsx?$/, ''), files: new Set([...entryFiles, ...pageClosure(key)]) })),
];
const allJs = [...new Set(Object.values(manifest).map((chunk) => chunk.file))].filter((f) => f.endsWith('.js'));
const total = allJs.reduce((sum, f) => sum + sizeOf(f), 0);

const failures = [];
const kb = (bytes) => `${(bytes / KB).toFixed(1)} KB`;
console.log('admin-web JavaScript, gzipped:');
for (const page of pages) {
  const size = pageSize(page.files);
  console.log(`  page ${page.name.padEnd(20)} ${kb(size).padStart(9)}  (budget ${kb(BUDGETS.page)})`);
  if (size > BUDGETS.page && (page.name === 'sign-in' || page.name === 'routes')) failures.push(`${page.name} loads ${kb(size)}`);
}
console.log(`  all chunks (${allJs.length})${' '.repeat(12)}${kb(total).padStart(9)}  (budget ${kb(BUDGETS.total)})`);
if (total > BUDGETS.total) failures.push(`all chunks sum to ${kb(total)}`);
if (failures.length > 0) {
  console.error(`admin-web is over its size budget: ${failures.join('; ')}`);
  process.exit(1);
}
