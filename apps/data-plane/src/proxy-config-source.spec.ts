import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeTempDir, manyRoutesConfig } from '@gateway/testing';
import { ELEMENT_SEPARATOR } from './engine/state-files';
import { loadProxyConfig, loadProxyConfigForReload, type KnownRoute } from './proxy-config-source';

/** A route whose JSON is not ASCII: record boundaries in the worker's buffer are bytes, not characters. */
const UNICODE_ROUTE = [
  '  - id: unicode',
  '    path: /unicode/*',
  '    upstream: http://127.0.0.1:9',
  '    circuitBreaker: { enabled: true, threshold: 50, timeout: 30000, volumeThreshold: 20, fallback: { status: 503, body: "é€😀 down" } }',
  '',
].join('\n');

test('a proxy.yml large enough for the worker gives the routes the event loop gives, with a fingerprint each', async () => {
  const dir = makeTempDir();
  try {
    const file = path.join(dir.path, 'proxy.yml');
    writeFileSync(file, manyRoutesConfig({ count: 500, upstreamOrigin: 'http://127.0.0.1:9' }).yaml + UNICODE_ROUTE);
    assert.ok(statSync(file).size > 64 * 1024, 'large enough to be read off the event loop');
    const inThread = await loadProxyConfig(file);
    const offThread = await loadProxyConfigForReload(file);
    assert.equal(inThread.ok, true, JSON.stringify(inThread).slice(0, 500));
    assert.equal(offThread.ok, true, JSON.stringify(offThread).slice(0, 500));
    if (!inThread.ok || !offThread.ok) return;
    assert.deepEqual(offThread.config, inThread.config);
    assert.equal(offThread.config.routes.at(-1)?.circuitBreaker?.fallback?.body, 'é€😀 down');
    const expected = offThread.config.routes.map((route) => createHash('sha256').update(JSON.stringify(route)).digest('base64url').slice(0, 22));
    assert.deepEqual(offThread.fingerprints, expected);
    assert.equal(new Set(expected).size, expected.length, 'different routes, different fingerprints');
    const json = offThread.routeJson;
    assert.equal(json?.length, offThread.config.routes.length);
    offThread.config.routes.forEach((route, i) => assert.equal(Buffer.from(json?.element(i) ?? []).toString('utf8'), JSON.stringify(route), `route ${i}: its JSON text`));
    assert.equal(Buffer.from(json?.joined ?? []).toString('utf8'), offThread.config.routes.map((route) => JSON.stringify(route)).join(ELEMENT_SEPARATOR), 'all of them, joined as the snapshot file writes them');
  } finally {
    dir.remove();
  }
});

test('an invalid large proxy.yml read by the worker reports the errors, with lines, that the event loop reports', async () => {
  const dir = makeTempDir();
  try {
    const file = path.join(dir.path, 'proxy.yml');
    writeFileSync(file, `${manyRoutesConfig({ count: 500, upstreamOrigin: 'http://127.0.0.1:9' }).yaml}  - id: broken\n    path: no-slash\n    upstream: ftp://x\n`);
    const inThread = await loadProxyConfig(file);
    const offThread = await loadProxyConfigForReload(file);
    assert.equal(offThread.ok, false);
    assert.deepEqual(offThread, inThread);
  } finally {
    dir.remove();
  }
});

test('a reload takes the served object of every unchanged route, in place or moved, and parses only what changed', async () => {
  const dir = makeTempDir();
  try {
    const file = path.join(dir.path, 'proxy.yml');
    const origin = 'http://127.0.0.1:9';
    writeFileSync(file, manyRoutesConfig({ count: 500, upstreamOrigin: origin }).yaml);
    const first = await loadProxyConfigForReload(file);
    assert.equal(first.ok, true);
    if (!first.ok) return;
    const known: KnownRoute[] = first.config.routes.map((route, i) => ({ id: route.id, route, fingerprint: first.fingerprints?.[i] }));

    // Route 10 edited in place; a new route inserted before route 200 (every later one moves down a place).
    const inserted = '  - id: inserted\n    path: /inserted/*\n    upstream: http://127.0.0.1:9/inserted\n';
    const edited = manyRoutesConfig({ count: 500, upstreamOrigin: origin, changed: new Set([10]) }).yaml;
    const at = edited.indexOf('  - id: r-200\n');
    writeFileSync(file, edited.slice(0, at) + inserted + edited.slice(at));
    const second = await loadProxyConfigForReload(file, known);
    const expected = await loadProxyConfig(file);
    assert.equal(second.ok, true);
    assert.equal(expected.ok, true);
    if (!second.ok || !expected.ok) return;
    assert.deepEqual(second.config, expected.config, 'the same configuration as a load without reuse');
    const served = new Map(known.map((k) => [k.id, k]));
    second.config.routes.forEach((route, i) => {
      const before = served.get(route.id);
      const changed = route.id === 'r-10' || route.id === 'inserted';
      assert.equal(route === before?.route, !changed, `${route.id}: ${changed ? 'parsed' : 'the served object'}`);
      const fingerprint = createHash('sha256').update(JSON.stringify(route)).digest('base64url').slice(0, 22);
      assert.equal(second.fingerprints?.[i], fingerprint, `${route.id}: its fingerprint`);
    });
  } finally {
    dir.remove();
  }
});
