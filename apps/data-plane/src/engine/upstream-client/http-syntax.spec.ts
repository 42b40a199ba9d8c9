import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FIELD_SECTION, FIELD_VALUE_CHAR, isFieldValue, isNamed, isToken, TCHAR } from './http-syntax';

// The RFC 9110 grammar as the regular expressions the character tables replaced: every character
// code must get the same verdict from both.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

test('isToken agrees with the token grammar for every character code up to 0x2FF, alone and inside a name', () => {
  for (let code = 0; code < 0x300; code += 1) {
    const c = String.fromCharCode(code);
    assert.equal(isToken(c), TOKEN.test(c), `code ${code} alone`);
    assert.equal(isToken(`a${c}b`), TOKEN.test(`a${c}b`), `code ${code} inside`);
  }
});

test('isToken refuses the empty string and names with a space', () => {
  assert.equal(isToken(''), false);
  assert.equal(isToken('Content-Length'), true);
  assert.equal(isToken('Content Length'), false);
});

test('isFieldValue agrees with the field-value grammar for every character code up to 0x2FF', () => {
  for (let code = 0; code < 0x300; code += 1) {
    const value = `x ${String.fromCharCode(code)} y`;
    assert.equal(isFieldValue(value), FIELD_VALUE.test(value), `code ${code}`);
  }
});

test('isFieldValue accepts the empty value and obs-text, refuses CR, LF, NUL, DEL and code points past 0xFF anywhere', () => {
  assert.equal(isFieldValue(''), true);
  assert.equal(isFieldValue('text/html; charset=\xe9\t'), true);
  for (const bad of ['a\rb', 'a\nb', '\r\nX: y', 'a\0', '\x7f', 'caf\u0100', 'end\r']) assert.equal(isFieldValue(bad), false, JSON.stringify(bad));
});

test('the character tables the response parser scans with agree with the grammar for every latin1 code', () => {
  for (let code = 0; code < 256; code += 1) {
    const c = String.fromCharCode(code);
    assert.equal(TCHAR[code] === 1, TOKEN.test(c), `tchar ${code}`);
    assert.equal(FIELD_VALUE_CHAR[code] === 1, FIELD_VALUE.test(c), `field value ${code}`);
  }
});

test('isNamed compares a token with a lower-case name whatever its case, and only that name', () => {
  assert.equal(isNamed('Content-Length', 'content-length'), true);
  assert.equal(isNamed('CONTENT-LENGTH', 'content-length'), true);
  assert.equal(isNamed('content-lengths', 'content-length'), false);
  assert.equal(isNamed('content_length', 'content-length'), false);
  assert.equal(isNamed('Host', 'host'), true);
  assert.equal(isNamed('Hosu', 'host'), false);
  // No tchar but the letters maps onto a letter or '-' by the case bit.
  for (let code = 0; code < 256; code += 1) {
    if (TCHAR[code] !== 1 || /[A-Za-z-]/.test(String.fromCharCode(code))) continue;
    assert.equal(/[a-z-]/.test(String.fromCharCode(code | 0x20)), false, `tchar ${code}`);
  }
});

/** Every line `token ":" field-value`, lines joined by CRLF: what the scan of the character tables accepts. */
function wellFormedByGrammar(section: string): boolean {
  return section.split('\r\n').every((line) => {
    const colon = line.indexOf(':');
    return colon > 0 && TOKEN.test(line.slice(0, colon)) && FIELD_VALUE.test(line.slice(colon + 1));
  });
}

function sectionMatches(section: string, from = 0): boolean {
  FIELD_SECTION.lastIndex = from;
  return FIELD_SECTION.test(section);
}

test('FIELD_SECTION accepts a field section exactly when every line is a token, a colon and a field value', () => {
  for (let code = 0; code < 0x300; code += 1) {
    const c = String.fromCharCode(code);
    for (const section of [`A${c}b: v\r\nC: d`, `A: v${c}w\r\nC: d`, `A: v\r\nC: d${c}`, `A: v\r\n${c}: d`, `A:${c}`]) {
      assert.equal(sectionMatches(section), wellFormedByGrammar(section), `code ${code} in ${JSON.stringify(section)}`);
    }
  }
  for (const bad of ['', ': v', 'A v', 'A: v\r\n', 'A: v\r\n\r\nB: w', 'A: v\rB: w', 'A: v\nB: w', ' A: v', 'A: v\r\n B: w']) {
    assert.equal(sectionMatches(bad), false, JSON.stringify(bad));
  }
  for (const good of ['A:', 'A: v', 'A:\tv \t', 'Set-Cookie: a=1; Path=/\r\nset-cookie: b=2\r\nX-E: caf\xe9']) {
    assert.equal(sectionMatches(good), true, JSON.stringify(good));
  }
});

test('FIELD_SECTION starts at lastIndex (sticky) and must reach the end of the string', () => {
  const head = 'HTTP/1.1 200 OK\r\nAb: v\r\nB: w';
  assert.equal(sectionMatches(head, head.indexOf('\r\n') + 2), true);
  assert.equal(sectionMatches(head, 0), false, 'the status line is no field');
  assert.equal(sectionMatches(head, head.indexOf('\r\n') + 3), true, 'from inside a name, the rest is still a token');
  assert.equal(sectionMatches(`${head}\r\nbad line`, head.indexOf('\r\n') + 2), false);
});
