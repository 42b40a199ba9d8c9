import { isFieldValue, isToken, trimmedSlice } from './http-syntax';
import { protocolError, type UpstreamClientError } from './upstream-client-error';

/*
 * The status line and field lines of a response head, read in place from the head's text (lines
 * separated by CRLF) by index, without splitting it into an array of lines or running a regular
 * expression per line: the head of every proxied response goes through here.
 */

const CR_LF = '\r\n';

export interface StatusLine {
  readonly statusCode: number;
  /** 0 for HTTP/1.0, 1 for HTTP/1.1. */
  readonly httpMinor: number;
  readonly statusMessage: string;
}

const digit = (code: number): number => (code >= 48 && code <= 57 ? code - 48 : -1);

/**
 * `HTTP/1.x NNN[ reason]` in `text` up to `end` (RFC 9112 4: the reason may hold HTAB, SP, VCHAR
 * and obs-text only), or undefined when the line is not one.
 */
export function readStatusLine(text: string, end: number): StatusLine | undefined {
  if (end < 12 || !text.startsWith('HTTP/1.', 0) || text.charCodeAt(8) !== 32) return undefined;
  const minor = digit(text.charCodeAt(7));
  const hundreds = digit(text.charCodeAt(9));
  const tens = digit(text.charCodeAt(10));
  const units = digit(text.charCodeAt(11));
  if (minor < 0 || minor > 1 || hundreds < 1 || tens < 0 || units < 0) return undefined;
  const statusCode = hundreds * 100 + tens * 10 + units;
  if (end === 12) return { statusCode, httpMinor: minor, statusMessage: '' };
  if (text.charCodeAt(12) !== 32 || !isFieldValue(text, 13, end)) return undefined;
  return { statusCode, httpMinor: minor, statusMessage: text.slice(13, end) };
}

/**
 * One `name: value` line (`text` from `from` to `to`) onto `out` as name and trimmed value; an
 * error names what is wrong with it, in this order: obs-fold, no name and colon, the name, the value.
 */
export function readFieldLine(text: string, from: number, to: number, out: string[]): UpstreamClientError | undefined {
  const first = text.charCodeAt(from);
  // obs-fold (RFC 9112 5.2): a line continuing the previous field is refused, not unfolded.
  if (first === 32 || first === 9) return protocolError('obsolete line folding in a header field');
  const colon = text.indexOf(':', from);
  if (colon === -1 || colon >= to || colon === from) return protocolError('header line without a field name and colon');
  if (!isToken(text, from, colon)) return protocolError('invalid header field name');
  if (!isFieldValue(text, colon + 1, to)) return protocolError(`invalid character in header field ${text.slice(from, colon)}`);
  out.push(text.slice(from, colon), trimmedSlice(text, colon + 1, to));
  return undefined;
}

/** Field lines in `text` from `from` on (at least one: lines are separated, not terminated, by CRLF). */
function fieldLinesFrom(text: string, from: number): number {
  let count = 1;
  for (let at = text.indexOf(CR_LF, from); at !== -1; at = text.indexOf(CR_LF, at + 2)) count += 1;
  return count;
}

/**
 * The field lines of a head after its status line, which ends at `statusEnd` (the head's length
 * when it has no fields), onto `out`. More than `maxCount` lines is refused first, whatever else
 * is wrong; otherwise the first bad line's error.
 */
export function readFieldLines(text: string, statusEnd: number, out: string[], maxCount: number): UpstreamClientError | undefined {
  if (statusEnd >= text.length) return undefined;
  let from = statusEnd + 2;
  for (let count = 1; ; count += 1) {
    if (count > maxCount) return protocolError(`more than ${maxCount} header fields`);
    const found = text.indexOf(CR_LF, from);
    const lineEnd = found === -1 ? text.length : found;
    const error = readFieldLine(text, from, lineEnd, out);
    if (error !== undefined) return found !== -1 && count + fieldLinesFrom(text, found + 2) > maxCount ? protocolError(`more than ${maxCount} header fields`) : error;
    if (found === -1) return undefined;
    from = found + 2;
  }
}
