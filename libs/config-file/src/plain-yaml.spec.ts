import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parse } from 'yaml';
import { manyRoutesConfig } from '@gateway/testing';
import { readPlainYaml } from './plain-yaml';

/** What the `yaml` package (the reference: its document gives errors their lines) reads. */
function reference(text: string): unknown {
  return parse(text, { uniqueKeys: true });
}

function same(text: string): void {
  const plain = readPlainYaml(text);
  assert.notEqual(plain, undefined, `the plain reader gave up on ${JSON.stringify(text)}`);
  assert.deepEqual(plain?.value, reference(text), JSON.stringify(text));
}

test('the generated 10,000-route table is read, with the values the yaml package gives', () => {
  const { yaml } = manyRoutesConfig({ count: 10_000, upstreamOrigin: 'http://127.0.0.1:9' });
  same(yaml);
});

test('block mappings and sequences, flow collections, quotes and comments read as the yaml package reads them', () => {
  same('version: "1.0.0"\nproxy:\n  host: 127.0.0.1\n  port: 8080\n');
  same('routes:\n- id: a\n  path: /a/*\n  methods: [GET, POST]\n- id: b\n  path: /b\n');
  same('routes:\n  -   id: a   # comment\n      path: "/a"\n\n  # between\n  - id: b\n    tags:\n      - x\n      - "y z"\n');
  same("a: 'it''s'\nb: \"q\\\"\\\\\\/\\n\\t\\u0041 \"\nc: ''\nd: \"\"\n");
  same('h: { set: { x-request-id: "${requestId}", x-route: "${route}" }, remove: [server] }\n');
  same('a: {}\nb: []\nc: { k: }\nd:\ne: ~\nf: [1, -2, .5, -.inf, 0x1F, 0o17, 1e3, true, False, NULL, yes, no]\n');
  same('url: http://host:8080/x#frag\nnote: a#b\nspaced:    x y   \n"quoted key": 1\n');
  same('a:\n  b:\n    c:\n      - 1\n      -\n        d: 2\n  e: 3\nf: 4\n');
  same('list:\n- a\n- b\nnext: 1\n');
  same('"a.b": { "c": [ "d", \'e\' ] }\n');
  same('- 1\n- { a: 1 }\n- [x]\n');
});

test('anything outside the subset is given up on (js-yaml, then the yaml document, read it instead)', () => {
  const outside = [
    'a: |\n  text\n',
    'a: >\n  text\n',
    'a: &x 1\nb: *x\n',
    'a: !!str 1\n',
    '---\na: 1\n',
    '%YAML 1.2\n---\na: 1\n',
    'a: 1\na: 2\n',
    'a: {x: 1, x: 2}\n',
    '__proto__: {polluted: 1}\n',
    'a:\n  <<: {x: 1}\n',
    '1: one\n',
    'true: yes\n',
    'a:\tb\n',
    'a: b\r\n',
    '\ufeffa: 1\n',
    'a: multi\n  line\n',
    'a: [1,\n  2]\n',
    'a: "open\n  close"\n',
    'a: [1, 2,]\n',
    'a: [a: 1]\n',
    '? complex\n: key\n',
    '- - nested\n',
    'a: b: c\n',
    'a: b {x}\n',
    'a: "\\x41"\n',
    'a: -b\n',
    '  indented: 1\n',
    'a: 1\n- b\n',
    'plain scalar\n',
    '',
    '# only a comment\n',
  ];
  for (const text of outside) assert.equal(readPlainYaml(text), undefined, JSON.stringify(text));
});

test('generated documents: the plain reader either gives up or gives the values of the yaml package', () => {
  const scalar = fc.oneof(
    fc.constantFrom('0b101', '+0x1F', '0x1F', '0o17', '017', '-12', '+12', '1_000', '1.5e3', '.5', '5.', '-.inf', '.NaN', 'true', 'tRUE', 'yes', 'null', '~', '12:30', 'a#b', 'a #b', '-', '-a', ':a', 'a:b'),
    fc.stringMatching(/^[-+]?[0-9_.xobeE]{1,8}$/),
    fc.stringMatching(/^[a-zA-Z/$][a-zA-Z0-9/_.:{}#-]{0,10}$/),
    fc.string({ maxLength: 8 }).map((s) => JSON.stringify(s)),
    fc.string({ maxLength: 8 }).map((s) => `'${s.replace(/'/g, "''")}'`),
  );
  const key = fc.oneof(fc.stringMatching(/^[a-z][a-z0-9-]{0,6}$/), fc.constantFrom('"a.b"', "'q k'", 'null', '1', 'true'));
  fc.assert(
    fc.property(fc.array(fc.tuple(key, scalar, fc.integer({ min: 0, max: 4 }), fc.boolean()), { minLength: 1, maxLength: 8 }), (entries) => {
      const lines: string[] = [];
      for (const [k, value, shape, comment] of entries) {
        const tail = comment ? ' # note' : '';
        if (shape === 0) lines.push(`${k}: ${value}${tail}`);
        else if (shape === 1) lines.push(`${k}:${tail}\n  - ${value}\n  - { k: ${value} }`);
        else if (shape === 2) lines.push(`${k}: [${value}, ${value}]${tail}`);
        else if (shape === 3) lines.push(`${k}:\n- id: ${value}\n  v: ${value}${tail}`);
        else lines.push(`${k}:\n    inner: { a: ${value}, b: [${value}] }${tail}`);
      }
      const text = `${lines.join('\n')}\n`;
      let expected: unknown;
      try {
        expected = reference(text);
      } catch {
        // Not YAML (or a duplicate key): the plain reader must give up, so the yaml document reports it.
        assert.equal(readPlainYaml(text), undefined, text);
        return;
      }
      const plain = readPlainYaml(text);
      if (plain !== undefined) assert.deepEqual(plain.value, expected, text);
    }),
    { numRuns: 2000 },
  );
});
