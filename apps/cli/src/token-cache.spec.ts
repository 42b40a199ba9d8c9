import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { TokenCache } from './token-cache';

function makeTempDir(prefix: string): { path: string; remove(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  return { path: dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

const HOUR = 3600_000;

test('a token is found only for the gateway and email it was issued for, until shortly before it expires', async () => {
  const dir = makeTempDir('token-cache-');
  try {
    const cache = new TokenCache(path.join(dir.path, 'data'));
    const now = Date.now();
    await cache.store({ url: 'http://127.0.0.1:8080', email: 'a@example.com', token: 't1', expiresAt: new Date(now + HOUR).toISOString() }, now);
    assert.equal(await cache.find('http://127.0.0.1:8080', 'a@example.com', now), 't1');
    assert.equal(await cache.find('http://127.0.0.1:9090', 'a@example.com', now), undefined, 'another gateway never gets it');
    assert.equal(await cache.find('http://127.0.0.1:8080', 'b@example.com', now), undefined);
    assert.equal(await cache.find('http://127.0.0.1:8080', 'a@example.com', now + HOUR - 30_000), undefined, 'about to expire');
    assert.equal(statSync(cache.file).mode & 0o777, 0o600);
    assert.equal(statSync(path.dirname(cache.file)).mode & 0o777, 0o700);
  } finally {
    dir.remove();
  }
});

test('storing replaces the entry of the same gateway and email, keeps others, drops expired ones; forget removes one', async () => {
  const dir = makeTempDir('token-cache-');
  try {
    const cache = new TokenCache(dir.path);
    const now = Date.now();
    const later = new Date(now + HOUR).toISOString();
    await cache.store({ url: 'http://a', email: 'x@example.com', token: 'old', expiresAt: later }, now);
    await cache.store({ url: 'http://b', email: 'x@example.com', token: 'other', expiresAt: later }, now);
    await cache.store({ url: 'http://c', email: 'x@example.com', token: 'stale', expiresAt: new Date(now + 1000).toISOString() }, now);
    await cache.store({ url: 'http://a', email: 'x@example.com', token: 'new', expiresAt: later }, now + 2000);
    const stored = (JSON.parse(readFileSync(cache.file, 'utf8')) as { tokens: Array<{ url: string; token: string }> }).tokens;
    assert.deepEqual(stored.map((entry) => [entry.url, entry.token]), [['http://b', 'other'], ['http://a', 'new']]);
    await cache.forget('http://a', 'x@example.com');
    assert.equal(await cache.find('http://a', 'x@example.com'), undefined);
    assert.equal(await cache.find('http://b', 'x@example.com'), 'other');
  } finally {
    dir.remove();
  }
});

test('a cache file others can read, or that is not ours in shape, yields no token', async () => {
  const dir = makeTempDir('token-cache-');
  try {
    const cache = new TokenCache(dir.path);
    await cache.store({ url: 'http://a', email: 'x@example.com', token: 't', expiresAt: new Date(Date.now() + HOUR).toISOString() });
    chmodSync(cache.file, 0o640);
    assert.equal(await cache.find('http://a', 'x@example.com'), undefined);
    chmodSync(cache.file, 0o600);
    assert.equal(await cache.find('http://a', 'x@example.com'), 't');
  } finally {
    dir.remove();
  }
});
