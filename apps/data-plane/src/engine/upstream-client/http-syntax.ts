/** RFC 9110 5.6.2 token: method and field names, transfer codings. */
export const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** RFC 9110 5.5 field value: HTAB, SP, VCHAR, obs-text; no other control character, so no bare CR or LF. */
export const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** Strips optional whitespace (SP, HTAB) only: `String.prototype.trim` would also eat NBSP (0xA0, obs-text). */
export function trimOws(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && (value.charCodeAt(start) === 32 || value.charCodeAt(start) === 9)) start += 1;
  while (end > start && (value.charCodeAt(end - 1) === 32 || value.charCodeAt(end - 1) === 9)) end -= 1;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}
