import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeTempDir, manyRoutesConfig } from '@gateway/testing';
import { loadProxyConfig, loadProxyConfigForReload } from './proxy-config-source';

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
