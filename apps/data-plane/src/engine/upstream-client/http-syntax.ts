/** RFC 9110 5.6.2 token: method and field names, transfer codings. */
export const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** RFC 9110 5.5 field value: HTAB, SP, VCHAR, obs-text; no other control character, so no bare CR or LF. */
export const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

const TCHAR = 1;
const VALUE_CHAR = 2;
/**
 * The two classes per latin1 code, derived from TOKEN and FIELD_VALUE so they can never disagree.
 * The per-request checks loop over char codes with this table: on the short names and values of
 * a head that is cheaper than a regular expression call per field.
 */
const CHAR_CLASS = new Uint8Array(256);
for (let code = 0; code < 256; code += 1) {
  const char = String.fromCharCode(code);
  CHAR_CLASS[code] = (TOKEN.test(char) ? TCHAR : 0) | (FIELD_VALUE.test(char) ? VALUE_CHAR : 0);
}

/** `TOKEN.test(text.slice(from, to))` without the slice: false for an empty range. */
export function isToken(text: string, from = 0, to = text.length): boolean {
  if (from >= to) return false;
  for (let i = from; i < to; i += 1) {
    const code = text.charCodeAt(i);
    if (code > 255 || ((CHAR_CLASS[code] as number) & TCHAR) === 0) return false;
  }
  return true;
}

/** `FIELD_VALUE.test(text.slice(from, to))` without the slice: true for an empty range. */
export function isFieldValue(text: string, from = 0, to = text.length): boolean {
  for (let i = from; i < to; i += 1) {
    const code = text.charCodeAt(i);
    if (code > 255 || ((CHAR_CLASS[code] as number) & VALUE_CHAR) === 0) return false;
  }
  return true;
}

const isOws = (code: number): boolean => code === 32 || code === 9;

/** Strips optional whitespace (SP, HTAB) only: `String.prototype.trim` would also eat NBSP (0xA0, obs-text). */
export function trimOws(value: string): string {
  return trimmedSlice(value, 0, value.length);
}

/** `trimOws(text.slice(from, to))` with one slice at most. */
export function trimmedSlice(text: string, from: number, to: number): string {
  let start = from;
  let end = to;
  while (start < end && isOws(text.charCodeAt(start))) start += 1;
  while (end > start && isOws(text.charCodeAt(end - 1))) end -= 1;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}
