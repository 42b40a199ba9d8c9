import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FIELD_VALUE_CHAR, isFieldValue, isNamed, isToken, TCHAR } from './http-syntax';

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
