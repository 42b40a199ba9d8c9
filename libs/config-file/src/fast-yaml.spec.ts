import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parse } from 'yaml';
import { fastYamlValue } from './fast-yaml';

/** What the `yaml` package (the reference: its document gives errors their lines) reads. */
function reference(text: string): unknown {
  return parse(text, { uniqueKeys: true });
}

const TRICKY_SCALARS = [
  '0b101', '+0x1F', '0x1F', '0o17', '017', '-12', '+12', '1_000', '1_000.5', '1.5e3', '.5', '5.', '-.inf', '.Inf', '.NaN',
  'true', 'True', 'TRUE', 'tRUE', 'yes', 'on', 'y', 'null', 'Null', '~', '', '2024-01-01', '12:30', '0.1.2', '1e', '"1"', "'true'",
];

test('plain scalars read as the yaml package reads them (YAML 1.2 core schema)', () => {
  for (const scalar of TRICKY_SCALARS) {
    const text = `value: ${scalar}\nlist: [${scalar === '' ? '""' : scalar}]\n`;
    assert.deepEqual(fastYamlValue(text)?.value, reference(text), `scalar ${JSON.stringify(scalar)}`);
  }
});

test('merge keys, __proto__, a BOM with CRLF lines and block scalars read as the yaml package reads them', () => {
  const texts = [
    'a: {x: 1}\nb:\n  <<: {x: 2}\n',
    '__proto__: {polluted: 1}\n',
    '\ufeffversion: "1.0.0"\r\nx: 1\r\n',
    'k: "\\u0041"\n',
    'k: |\n  line\n  two\n',
    'k: >-\n  folded\n  text\n',
  ];
  for (const text of texts) assert.deepEqual(fastYamlValue(text)?.value, reference(text), JSON.stringify(text));
  assert.equal(Object.getPrototypeOf(fastYamlValue('__proto__: {polluted: 1}\n')?.value), Object.prototype, 'no prototype set from the file');
  assert.equal(fastYamlValue('a: 1\n---\nb: 2\n'), undefined, 'several documents: the yaml package says why');
});

test('generated scalars, keys and nesting read the same as the yaml package', () => {
  const scalar = fc.oneof(
    fc.constantFrom(...TRICKY_SCALARS.filter((s) => s !== '')),
    fc.stringMatching(/^[-+]?[0-9_.xobeE]{1,8}$/),
    fc.stringMatching(/^[a-zA-Z/][a-zA-Z0-9/_.-]{0,10}$/),
  );
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.stringMatching(/^[a-z][a-z0-9]{0,6}$/), scalar, fc.boolean()), { minLength: 1, maxLength: 8 }), (entries) => {
      const keys = new Set<string>();
      const lines: string[] = [];
      for (const [key, value, nested] of entries) {
        if (keys.has(key)) continue;
        keys.add(key);
        lines.push(nested ? `${key}:\n  - ${value}\n  - { k: ${value} }` : `${key}: ${value}`);
      }
      const text = `${lines.join('\n')}\n`;
      let expected: unknown;
      try {
        expected = reference(text);
      } catch {
        return;
      }
      const fast = fastYamlValue(text);
      // Undefined is a fallback to the yaml package itself, which is always allowed.
      if (fast !== undefined) assert.deepEqual(fast.value, expected, text);
    }),
    { numRuns: 500 },
  );
});

test('aliases, duplicate keys and unknown tags are left to the yaml package', () => {
  assert.equal(fastYamlValue('a: &x 1\nb: *x\n'), undefined, 'an alias needs the alias limit');
  assert.equal(fastYamlValue('a: 1\na: 2\n'), undefined, 'a duplicate key is an error with a line');
  assert.equal(fastYamlValue('a: !!binary aGVsbG8=\n'), undefined);
  assert.equal(fastYamlValue('a: [1\n'), undefined, 'a syntax error gets its line from the document');
  assert.deepEqual(fastYamlValue('path: /p0/*\nhosts: ["*.example.com"]\n')?.value, { path: '/p0/*', hosts: ['*.example.com'] });
});
