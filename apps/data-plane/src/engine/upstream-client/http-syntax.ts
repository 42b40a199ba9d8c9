/*
 * RFC 9110 syntax checks for what the lean client writes and reads, by a character table instead of
 * a regular expression: a header is checked on every request (names and values of the upstream
 * request, the fields of its response), and under callgrind a `RegExp.prototype.test` cost about
 * 440 instructions a call whatever the length, against a few a character for this loop
 * (tools/bench/README.md, "Instructions per request with the policy set").
 */

import { TOKEN_CHARACTERS } from '@gateway/route-model';

/**
 * RFC 9110 5.6.2 tchar (libs/route-model's list), indexed by character code (0-255, so a latin1
 * string's code needs no range check): 1 for a token character.
 */
export const TCHAR = new Uint8Array(256);
for (const c of TOKEN_CHARACTERS) TCHAR[c.charCodeAt(0)] = 1;

/** RFC 9110 5.5 field-vchar or OWS (HTAB, SP, VCHAR, obs-text), indexed by character code (0-255): 1 when allowed in a value. */
export const FIELD_VALUE_CHAR = new Uint8Array(256);
for (let code = 0; code < 256; code += 1) FIELD_VALUE_CHAR[code] = code === 9 || (code >= 32 && code !== 127) ? 1 : 0;

/** RFC 9110 5.6.2 token (method and field names, transfer codings): one or more tchar. */
export function isToken(value: string): boolean {
  const length = value.length;
  if (length === 0) return false;
  for (let i = 0; i < length; i += 1) {
    const code = value.charCodeAt(i);
    if (code > 127 || TCHAR[code] === 0) return false;
  }
  return true;
}

/** RFC 9110 5.5 field value: HTAB, SP, VCHAR, obs-text; no other control character, so no bare CR or LF. */
export function isFieldValue(value: string): boolean {
  for (let i = 0; i < value.length; i += 1) {
    const code = value.charCodeAt(i);
    if (code < 32 ? code !== 9 : code === 127 || code > 255) return false;
  }
  return true;
}

/**
 * `name` equals `lower` (a lower-case field name) whatever its case: ASCII letters only differ by
 * bit 0x20, and a token has no character that bit turns into a letter or '-' (CR, the only one
 * turned into '-', is not a tchar), so no toLowerCase copy is made for the framing fields.
 */
export function isNamed(name: string, lower: string): boolean {
  if (name.length !== lower.length) return false;
  for (let i = 0; i < name.length; i += 1) if ((name.charCodeAt(i) | 0x20) !== lower.charCodeAt(i)) return false;
  return true;
}

/** Strips optional whitespace (SP, HTAB) only: `String.prototype.trim` would also eat NBSP (0xA0, obs-text). */
export function trimOws(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && (value.charCodeAt(start) === 32 || value.charCodeAt(start) === 9)) start += 1;
  while (end > start && (value.charCodeAt(end - 1) === 32 || value.charCodeAt(end - 1) === 9)) end -= 1;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}

/** A character class of the codes 0-255 `table` marks 1, written with \xHH escapes. */
function characterClass(table: Uint8Array): string {
  let out = '';
  for (let code = 0; code < 256; code += 1) if (table[code] === 1) out += `\\x${code.toString(16).padStart(2, '0')}`;
  return `[${out}]`;
}

/**
 * A field section whose every line is `token ":" field-value` (the tables above, so the same
 * verdict as a scan by them), lines joined by CRLF, from `lastIndex` to the end of the string
 * (sticky). One test over a whole head is cheaper than a scan by character in JavaScript
 * (response-parser.ts, splitWellFormedFields). Linear: a token has no ':', a value no CR.
 */
export const FIELD_SECTION = new RegExp(
  `(?:${characterClass(TCHAR)}+:${characterClass(FIELD_VALUE_CHAR)}*\\r\\n)*${characterClass(TCHAR)}+:${characterClass(FIELD_VALUE_CHAR)}*$`,
  'y',
);
