import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request, startGatewayProcess, type GatewayProcess } from '@gateway/testing';
import { ADMIN_ENV } from './auth-fixtures';
import { TEST_SETTINGS_ENCRYPTION_KEY } from './control-plane-process';

/*
 * The admin UI at /admin (docs/admin-ui.md) in both roles that serve the API: deep links answer the
 * index with a relative <base>, hashed assets are cached for a year, the index is revalidated, and a
 * CSP without inline script covers the page.
 */
const FILE = 'version: "1.0.0"\nroutes: []\n';

for (const role of ['all', 'control-plane'] as const) {
  describe(`admin UI served at /admin (--role ${role})`, () => {
    let gateway: GatewayProcess;
    before(async () => {
      gateway = await startGatewayProcess({ role, config: FILE, env: { ...ADMIN_ENV, SETTINGS_ENCRYPTION_KEY: TEST_SETTINGS_ENCRYPTION_KEY } });
    });
    after(async () => {
      await gateway?.stop();
    });

    const get = (urlPath: string, method = 'GET') => request(`${gateway.url}${urlPath}`, { method });

    test('the index at /admin/ and at deep links, with a base leading back to /admin/', async () => {
      for (const [urlPath, base] of [
        ['/admin/', './'],
        ['/admin/routes', './'],
        ['/admin/routes/abc', '../'],
        ['/admin/routes/abc?page=2', '../'],
      ] as const) {
        const res = await get(urlPath);
        assert.equal(res.status, 200, `${urlPath}: ${res.text}`);
        assert.match(String(res.headers['content-type']), /^text\/html/);
        assert.equal(res.headers['cache-control'], 'no-cache');
        assert.match(res.text, new RegExp(`<base href="${base.replace(/\./g, '\\.')}" />`), urlPath);
        assert.match(res.text, /<div id="app"><\/div>/);
      }
    });

    test('a CSP without inline script, and an index with no inline script to need one', async () => {
      const res = await get('/admin/');
      const csp = String(res.headers['content-security-policy']);
      assert.match(csp, /script-src 'self'(;|$)/);
      assert.match(csp, /style-src 'self'(;|$)/);
      assert.match(csp, /frame-ancestors 'none'/);
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
      const scripts = [...res.text.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
      assert.ok(scripts.length > 0);
      for (const [, attributes, body] of scripts) {
        assert.match(attributes ?? '', /src="\.\/assets\/[^"]+\.js"/);
        assert.equal(body?.trim(), '');
      }
      assert.doesNotMatch(res.text, /\sstyle="/);
    });

    test('hashed assets are immutable for a year; a missing one is 404, not the index', async () => {
      const index = (await get('/admin/')).text;
      const assets = [...index.matchAll(/(?:src|href)="\.\/(assets\/[^"]+)"/g)].map((m) => m[1]);
      assert.ok(assets.some((a) => a?.endsWith('.js')) && assets.some((a) => a?.endsWith('.css')), index);
      for (const asset of assets) {
        const res = await get(`/admin/${asset}`);
        assert.equal(res.status, 200, asset);
        assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable');
        assert.equal(res.headers['x-content-type-options'], 'nosniff');
        const type = { js: /javascript/, css: /^text\/css/, svg: /^image\/svg\+xml/ }[String(asset?.split('.').pop())];
        assert.ok(type !== undefined, `an asset of an unexpected kind: ${asset}`);
        assert.match(String(res.headers['content-type']), type);
      }
      const missing = await get('/admin/assets/index-missing.js');
      assert.equal(missing.status, 404);
      assert.doesNotMatch(missing.text, /<div id="app">/);
    });

    test('/admin redirects to /admin/ relatively (works under a path prefix); writes are refused', async () => {
      const bare = await get('/admin?x=1');
      assert.equal(bare.status, 301);
      assert.equal(bare.headers.location, 'admin/?x=1');
      const post = await get('/admin/routes', 'POST');
      assert.equal(post.status, 405);
      assert.equal(post.headers.allow, 'GET, HEAD');
    });

    test('the API beside it is untouched: /api still answers JSON', async () => {
      const res = await get('/api/auth/session');
      assert.equal(res.status, 401);
      assert.equal(res.json<{ code: string }>().code, 'UNAUTHORIZED');
    });
  });
}
