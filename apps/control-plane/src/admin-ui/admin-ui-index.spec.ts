import { test } from 'node:test';
import assert from 'node:assert/strict';
import { indexForPath } from './admin-ui-index';

const INDEX = '<!doctype html><html><head><script type="module" src="./assets/index-abc.js"></script></head></html>';
const baseOf = (html: string): string | undefined => /<base href="([^"]*)"/.exec(html)?.[1];

test('the base leads from the deep link back to /admin/, before any asset URL', () => {
  const cases: Array<[string, string]> = [
    ['/', './'],
    ['/routes', './'],
    ['/routes/', '../'],
    ['/routes/abc', '../'],
    ['/routes/abc/edit', '../../'],
  ];
  for (const [pathBelowAdmin, base] of cases) {
    const html = indexForPath(INDEX, pathBelowAdmin);
    assert.equal(baseOf(html), base, pathBelowAdmin);
    const resolved = new URL(base, `http://gw.test/prefix/admin${pathBelowAdmin}`);
    assert.equal(resolved.pathname, '/prefix/admin/', pathBelowAdmin);
    assert.ok(html.indexOf('<base') < html.indexOf('./assets/'), 'the base precedes the script');
  }
});
