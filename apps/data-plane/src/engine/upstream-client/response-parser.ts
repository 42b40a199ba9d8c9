import { FIELD_VALUE_CHAR, isFieldValue, isNamed, isToken, TCHAR, trimOws, FIELD_SECTION } from './http-syntax';
import { protocolError, UpstreamClientError } from './upstream-client-error';
import { copyOf } from './read-buffer';

/**
 * The limits http.request applies to upstream responses today (node's defaults, which the gateway
 * keeps): a 16 KiB head (`http.maxHeaderSize`) and about 1,000 fields. node silently drops the
 * fields past its count (measured on node 20: the first 1,023 are kept, a Content-Length after
 * them is lost); this parser refuses such a response instead, so a proxy never forwards a message
 * other than the one the upstream sent.
 */
export const UPSTREAM_RESPONSE_LIMITS: ResponseParserLimits = { maxHeaderSize: 16 * 1024, maxHeaderCount: 1000 };

export interface ResponseParserLimits {
  /** Largest head (status line, fields and their CRLFs) and largest trailer section, in bytes. */
  readonly maxHeaderSize: number;
  /** Most fields in a head or a trailer section. */
  readonly maxHeaderCount: number;
}

/** Interim (1xx) responses skipped before the final one, at most: a flood of them is refused. */
const MAX_INTERIM_RESPONSES = 32;
/** Longest chunk-size line (size and extensions) in bytes. */
const MAX_CHUNK_LINE = 1024;

export interface ResponseHead {
  readonly statusCode: number;
  readonly statusMessage: string;
  /** 0 for HTTP/1.0, 1 for HTTP/1.1. */
  readonly httpMinor: number;
  /** `[name, value, name, value, ...]` as received (casing and repeated fields kept). */
  readonly rawHeaders: string[];
  /** The connection may carry another request once this response is complete. */
  readonly keepAlive: boolean;
}

/** Where the parser delivers a response; the connection implements it once per socket. */
export interface ResponseSink {
  /** The final head (never a skipped 1xx), including a 101 (then `ResponseParser.upgraded`). */
  onResponseHead(head: ResponseHead): void;
  /** A slice of the bytes read from the socket (not copied): valid during the call only (read-buffer.ts). */
  onResponseBody(chunk: Buffer): void;
  /** The response is complete; `trailers` is a flat list, empty unless a chunked body had some. */
  onResponseEnd(trailers: string[]): void;
}

const enum State {
  Head,
  Length,
  ChunkSize,
  ChunkData,
  ChunkDataEnd,
  Trailers,
  UntilClose,
  Done,
  Upgraded,
  Stopped,
}

const NO_TRAILERS: string[] = [];
const EMPTY = Buffer.alloc(0);
const CRLF_CRLF = Buffer.from('\r\n\r\n', 'latin1');
// RFC 9112 7.1.1: chunk-size [ chunk-ext ], an extension being ;name[=token|quoted-string] with BWS.
const CHUNK_LINE =
  /^([0-9A-Fa-f]{1,16})(?:[ \t]*;[ \t]*[!#$%&'*+\-.^_`|~0-9A-Za-z]+(?:[ \t]*=[ \t]*(?:[!#$%&'*+\-.^_`|~0-9A-Za-z]+|"(?:[\t \x21\x23-\x5b\x5d-\x7e\x80-\xff]|\\[\t \x21-\x7e\x80-\xff])*"))?)*$/;

/** 1 to 15 decimal digits (no sign, no space): larger lengths are refused rather than rounded. */
function isContentLength(value: string): boolean {
  if (value.length === 0 || value.length > 15) return false;
  for (let i = 0; i < value.length; i += 1) {
    const code = value.charCodeAt(i);
    if (code < 48 || code > 57) return false;
  }
  return true;
}

/** True when a comma-separated field value lists `token` (case-insensitive). */
function listsToken(value: string, token: string): boolean {
  const lower = value.toLowerCase();
  if (!lower.includes(token)) return false;
  for (const part of lower.split(',')) if (trimOws(part) === token) return true;
  return false;
}

/** CRLFs in `text` from `from` on (only on an error path: the count check must win over a bad field, as before). */
function countLines(text: string, from: number): number {
  let count = 0;
  for (let at = text.indexOf('\r\n', from); at !== -1; at = text.indexOf('\r\n', at + 2)) count += 1;
  return count;
}

/**
 * The usual case of `parseFields`: a field section every line of which is well formed, checked by
 * one regular expression (FIELD_SECTION) and then split by `indexOf`, both builtins that scan in
 * native code. The scan by character of `parseFields` costs ~40 instructions a character under
 * callgrind (a typed-array or `charCodeAt` load a character, with their checks); the expression
 * ~3, plus ~440 a call (issue 19, branch h-srv100). Null when a line is not well formed: the scan
 * then says which, with its own message. Fields past the count limit are refused as by the scan.
 */
function splitWellFormedFields(text: string, start: number, out: string[], limits: ResponseParserLimits): UpstreamClientError | undefined | null {
  FIELD_SECTION.lastIndex = start;
  if (!FIELD_SECTION.test(text)) return null;
  const length = text.length;
  let count = 0;
  let at = start;
  for (;;) {
    count += 1;
    if (count > limits.maxHeaderCount) return protocolError(`more than ${limits.maxHeaderCount} header fields`);
    const colon = text.indexOf(':', at);
    let end = text.indexOf('\r', colon);
    if (end === -1) end = length;
    let valueStart = colon + 1;
    while (valueStart < end && (text.charCodeAt(valueStart) === 32 || text.charCodeAt(valueStart) === 9)) valueStart += 1;
    let valueEnd = end;
    while (valueEnd > valueStart && (text.charCodeAt(valueEnd - 1) === 32 || text.charCodeAt(valueEnd - 1) === 9)) valueEnd -= 1;
    out.push(text.slice(at, colon), text.slice(valueStart, valueEnd));
    if (end === length) return undefined;
    at = end + 2;
  }
}

/**
 * Parses the `name: value` lines of a head (`text` without its final CRLF CRLF, fields after the
 * first CRLF) into `out` in one scan by index with character tables: the name checked while its
 * colon is sought, the value checked while its CR is sought and its OWS trimmed by offsets, so a
 * field costs two substrings (its name and value) and no indexOf, split or trim (issue 19: under
 * callgrind the former indexOf, three slices and two checking loops a field were ~10k Ir a
 * response). A line the scan does not accept goes to `parseField`, which says what is wrong: too
 * many fields is reported before any bad field, else the first bad line.
 */
function parseFields(text: string, firstCrlf: number, out: string[], limits: ResponseParserLimits): UpstreamClientError | undefined {
  const length = text.length;
  let count = 0;
  let start = firstCrlf + 2;
  for (;;) {
    count += 1;
    if (count > limits.maxHeaderCount) return protocolError(`more than ${limits.maxHeaderCount} header fields`);
    let at = start;
    while (at < length && TCHAR[text.charCodeAt(at)] === 1) at += 1;
    let accepted = at > start && text.charCodeAt(at) === 58;
    const nameEnd = at;
    let valueStart = at;
    let valueEnd = at;
    if (accepted) {
      at += 1;
      while (at < length && (text.charCodeAt(at) === 32 || text.charCodeAt(at) === 9)) at += 1;
      valueStart = at;
      valueEnd = at;
      while (at < length) {
        const code = text.charCodeAt(at);
        if (code === 13) {
          // Only CR LF ends a line; a bare CR (or one ending the head) is refused by parseField.
          accepted = text.charCodeAt(at + 1) === 10;
          break;
        }
        if (FIELD_VALUE_CHAR[code] === 0) {
          accepted = false;
          break;
        }
        if (code !== 32 && code !== 9) valueEnd = at + 1;
        at += 1;
      }
    }
    if (accepted) {
      out.push(text.slice(start, nameEnd), text.slice(valueStart, valueEnd));
      if (at >= length) return undefined;
      start = at + 2;
      continue;
    }
    const lineEnd = text.indexOf('\r\n', start);
    const error = parseField(lineEnd === -1 ? text.slice(start) : text.slice(start, lineEnd), out);
    if (error !== undefined) {
      if (lineEnd !== -1 && count + countLines(text, lineEnd + 2) + 1 > limits.maxHeaderCount) {
        return protocolError(`more than ${limits.maxHeaderCount} header fields`);
      }
      return error;
    }
    if (lineEnd === -1) return undefined;
    start = lineEnd + 2;
  }
}

/** `HTTP/1.0|1 NNN[ reason]` (status 100-999, reason a field value) read by index: `[httpMinor, statusCode, reason]`, or null. */
function parseStatusLine(line: string): [number, number, string] | null {
  if (line.length < 12 || !line.startsWith('HTTP/1.')) return null;
  const minor = line.charCodeAt(7) - 48;
  const hundreds = line.charCodeAt(9) - 48;
  const tens = line.charCodeAt(10) - 48;
  const units = line.charCodeAt(11) - 48;
  if ((minor !== 0 && minor !== 1) || line.charCodeAt(8) !== 32) return null;
  if (hundreds < 1 || hundreds > 9 || tens < 0 || tens > 9 || units < 0 || units > 9) return null;
  let reason = '';
  if (line.length > 12) {
    if (line.charCodeAt(12) !== 32) return null;
    reason = line.slice(13);
    if (!isFieldValue(reason)) return null;
  }
  return [minor, hundreds * 100 + tens * 10 + units, reason];
}

function parseField(line: string, out: string[]): UpstreamClientError | undefined {
  const first = line.charCodeAt(0);
  // obs-fold (RFC 9112 5.2): a line continuing the previous field is refused, not unfolded.
  if (first === 32 || first === 9) return protocolError('obsolete line folding in a header field');
  const colon = line.indexOf(':');
  if (colon <= 0) return protocolError('header line without a field name and colon');
  const name = line.slice(0, colon);
  if (!isToken(name)) return protocolError('invalid header field name');
  const raw = line.slice(colon + 1);
  if (!isFieldValue(raw)) return protocolError(`invalid character in header field ${name}`);
  out.push(name, trimOws(raw));
  return undefined;
}

/**
 * A strict, incremental HTTP/1.1 response parser (RFC 9112) for one connection: one response at a
 * time, started by `start()` for each request. Bytes go in through `execute()`; the head, body
 * slices and end come out through the sink. It refuses what a proxy must not pass on: obs-fold,
 * bare CR or LF, Content-Length together with Transfer-Encoding, repeated Content-Length fields,
 * invalid chunk sizes, a Transfer-Encoding that does not end in chunked, and bytes that follow a
 * complete response in the same read (queue poisoning; the connection refuses later ones).
 */
export class ResponseParser {
  private state = State.Done;
  /**
   * An unfinished head, as received: joined only once its end arrived, so that a head sent a
   * byte at a time costs one copy, not one per read.
   */
  private pending: Buffer[] | undefined = undefined;
  private pendingLength = 0;
  /** The last (at most 3) bytes of `pending`: a CRLF CRLF may span two reads. */
  private pendingTail: Buffer = EMPTY;
  private line = '';
  private remaining = 0;
  private crlfSeen = 0;
  private headRequest = false;
  private interim = 0;
  private trailers: string[] = NO_TRAILERS;
  private trailerBytes = 0;
  /** The last head's keep-alive verdict (false for a body read until close). */
  keepAlive = false;
  /** Bytes received after a 101 head (the upgraded protocol's first bytes), from the last `execute()`. */
  leftover: Buffer | undefined = undefined;

  constructor(
    private readonly sink: ResponseSink,
    private readonly limits: ResponseParserLimits = UPSTREAM_RESPONSE_LIMITS,
  ) {}

  /** Expects the response to a new request; a HEAD response has no body whatever its framing says. */
  start(headRequest: boolean): void {
    this.state = State.Head;
    this.pending = undefined;
    this.line = '';
    this.headRequest = headRequest;
    this.interim = 0;
    this.trailers = NO_TRAILERS;
    this.trailerBytes = 0;
    this.keepAlive = false;
    this.leftover = undefined;
  }

  /** The response (or the 101 head) is complete. */
  get complete(): boolean {
    return this.state === State.Done || this.state === State.Upgraded;
  }

  get upgraded(): boolean {
    return this.state === State.Upgraded;
  }

  /** True once the final head was delivered (a body may still be on its way). */
  get headReceived(): boolean {
    return this.state !== State.Head && this.state !== State.Stopped;
  }

  /** Delivers nothing more (the exchange was aborted or failed). */
  stop(): void {
    this.state = State.Stopped;
    this.pending = undefined;
  }

  /**
   * Feeds bytes read from the socket, lent for the call: what the parser keeps (an unfinished head,
   * an upgrade's first bytes) it copies. Returns an error (and stops) when the response breaks the protocol. */
  execute(chunk: Buffer): UpstreamClientError | undefined {
    let data = chunk;
    const pending = this.pending;
    if (pending !== undefined) {
      const joint = Buffer.concat([this.pendingTail, chunk.subarray(0, 3)]);
      if (chunk.indexOf(CRLF_CRLF) === -1 && joint.indexOf(CRLF_CRLF) === -1) {
        // Still no end of the head in sight: keep the piece (bounded by the head limit).
        this.pendingLength += chunk.length;
        if (this.pendingLength > this.limits.maxHeaderSize) {
          this.stop();
          return protocolError('response head larger than the limit');
        }
        pending.push(copyOf(chunk));
        this.pendingTail = Buffer.concat([this.pendingTail, chunk]).subarray(-3);
        return undefined;
      }
      pending.push(chunk);
      data = Buffer.concat(pending);
      this.pending = undefined;
    }
    let pos = 0;
    while (pos < data.length) {
      let next: number | UpstreamClientError;
      switch (this.state) {
        case State.Head:
          next = this.readHead(data, pos);
          break;
        case State.Length:
          next = this.readLength(data, pos);
          break;
        case State.ChunkSize:
          next = this.readChunkSize(data, pos);
          break;
        case State.ChunkData:
          next = this.readChunkData(data, pos);
          break;
        case State.ChunkDataEnd:
          next = this.readChunkDataEnd(data, pos);
          break;
        case State.Trailers:
          next = this.readTrailers(data, pos);
          break;
        case State.UntilClose:
          this.sink.onResponseBody(pos === 0 ? data : data.subarray(pos));
          return undefined;
        case State.Done:
          // Bytes after a complete response answer no request: passed on, they would become the
          // next client's response (queue poisoning). node's parser refuses them the same way.
          this.stop();
          return protocolError('bytes after the end of the response');
        case State.Upgraded:
          this.leftover = copyOf(data.subarray(pos));
          return undefined;
        default:
          return undefined;
      }
      if (typeof next !== 'number') {
        this.stop();
        return next;
      }
      pos = next;
    }
    return undefined;
  }

  /** The upstream closed its side: ends a body read until close; any other unfinished response is an error. */
  finish(): UpstreamClientError | undefined {
    switch (this.state) {
      case State.UntilClose:
        this.state = State.Done;
        this.sink.onResponseEnd(NO_TRAILERS);
        return undefined;
      case State.Done:
      case State.Upgraded:
      case State.Stopped:
        return undefined;
      default:
        this.stop();
        return new UpstreamClientError('UPSTREAM_CLOSED_EARLY', 'the upstream closed the connection before the response was complete');
    }
  }

  private readHead(data: Buffer, pos: number): number | UpstreamClientError {
    const end = data.indexOf(CRLF_CRLF, pos);
    if (end === -1) {
      if (data.length - pos > this.limits.maxHeaderSize) return protocolError('response head larger than the limit');
      // Kept past this read: a copy, as `execute`'s bytes are only lent (read-buffer.ts).
      const rest = copyOf(data.subarray(pos));
      this.pending = [rest];
      this.pendingLength = rest.length;
      this.pendingTail = rest.subarray(-3);
      return data.length;
    }
    if (end + 4 - pos > this.limits.maxHeaderSize) return protocolError('response head larger than the limit');
    const text = data.toString('latin1', pos, end);
    const firstCrlf = text.indexOf('\r\n');
    const status = parseStatusLine(firstCrlf === -1 ? text : text.slice(0, firstCrlf));
    if (status === null) return protocolError('invalid status line');
    const statusCode = status[1];
    const rawHeaders: string[] = [];
    let fieldError: UpstreamClientError | undefined;
    if (firstCrlf !== -1) {
      const wellFormed = splitWellFormedFields(text, firstCrlf + 2, rawHeaders, this.limits);
      fieldError = wellFormed === null ? parseFields(text, firstCrlf, rawHeaders, this.limits) : wellFormed;
    }
    if (fieldError !== undefined) return fieldError;
    const next = end + 4;

    if (statusCode < 200 && statusCode !== 101) {
      // Interim responses (100, 102, 103) are skipped: the final response follows on the same connection.
      this.interim += 1;
      if (this.interim > MAX_INTERIM_RESPONSES) return protocolError('too many interim (1xx) responses');
      return next;
    }

    const httpMinor = status[0];
    let contentLength = -1;
    let chunked = false;
    let transferEncoding: string | undefined;
    let connection: string | undefined;
    for (let i = 0; i < rawHeaders.length; i += 2) {
      const name = rawHeaders[i] as string;
      if (name.length !== 14 && name.length !== 17 && name.length !== 10) continue;
      const value = rawHeaders[i + 1] as string;
      if (isNamed(name, 'content-length')) {
        // A second field, even an equal one, is refused: two framings is how responses get smuggled.
        if (contentLength !== -1) return protocolError('more than one Content-Length field');
        if (!isContentLength(value)) return protocolError('invalid Content-Length');
        contentLength = Number(value);
      } else if (isNamed(name, 'transfer-encoding')) {
        transferEncoding = transferEncoding === undefined ? value : `${transferEncoding}, ${value}`;
      } else if (isNamed(name, 'connection')) {
        connection = connection === undefined ? value : `${connection}, ${value}`;
      }
    }
    if (transferEncoding !== undefined) {
      if (contentLength !== -1) return protocolError('both Content-Length and Transfer-Encoding');
      const codings = transferEncoding.toLowerCase().split(',');
      // A coding after chunked, or no chunked at all, leaves a body a proxy cannot frame for its client.
      if (trimOws(codings[codings.length - 1] as string) !== 'chunked') return protocolError('Transfer-Encoding does not end in chunked');
      for (let i = 0; i < codings.length - 1; i += 1) {
        const coding = trimOws(codings[i] as string);
        if (coding === 'chunked' || !isToken(coding)) return protocolError('invalid Transfer-Encoding');
      }
      chunked = true;
    }

    const closes = connection !== undefined && listsToken(connection, 'close');
    let keepAlive = httpMinor === 1 ? !closes : connection !== undefined && !closes && listsToken(connection, 'keep-alive');
    const upgrade = statusCode === 101;
    if (upgrade) {
      this.state = State.Upgraded;
      keepAlive = false;
    } else if (this.headRequest || statusCode === 204 || statusCode === 304) {
      this.state = State.Done;
    } else if (chunked) {
      this.state = State.ChunkSize;
    } else if (contentLength !== -1) {
      this.state = contentLength === 0 ? State.Done : State.Length;
      this.remaining = contentLength;
    } else {
      this.state = State.UntilClose;
      keepAlive = false;
    }
    this.keepAlive = keepAlive;
    this.sink.onResponseHead({ statusCode, statusMessage: status[2], httpMinor, rawHeaders, keepAlive });
    if (this.state === State.Done) this.sink.onResponseEnd(NO_TRAILERS);
    return next;
  }

  private readLength(data: Buffer, pos: number): number {
    const available = data.length - pos;
    if (available <= this.remaining) {
      this.remaining -= available;
      if (this.remaining === 0) this.state = State.Done;
      this.sink.onResponseBody(pos === 0 ? data : data.subarray(pos));
      if (this.state === State.Done) this.sink.onResponseEnd(NO_TRAILERS);
      return data.length;
    }
    const end = pos + this.remaining;
    this.remaining = 0;
    this.state = State.Done;
    this.sink.onResponseBody(data.subarray(pos, end));
    if (this.state === State.Done) this.sink.onResponseEnd(NO_TRAILERS);
    return end;
  }

  /**
   * Reads one CRLF-terminated line into `this.line`: the line's end offset past its LF, or -1 when
   * the line continues in the next chunk, or an error for a bare LF or a line over `max` bytes.
   */
  private readLine(data: Buffer, pos: number, max: number): number | UpstreamClientError {
    const lf = data.indexOf(10, pos);
    const partial = data.toString('latin1', pos, lf === -1 ? data.length : lf);
    this.line = this.line === '' ? partial : this.line + partial;
    if (this.line.length > max + 1) return protocolError('line longer than the limit');
    if (lf === -1) return -1;
    if (this.line.charCodeAt(this.line.length - 1) !== 13) return protocolError('line ending in a bare LF');
    this.line = this.line.slice(0, -1);
    return lf + 1;
  }

  private readChunkSize(data: Buffer, pos: number): number | UpstreamClientError {
    const next = this.readLine(data, pos, MAX_CHUNK_LINE);
    if (typeof next !== 'number') return next;
    if (next === -1) return data.length;
    const match = CHUNK_LINE.exec(this.line);
    this.line = '';
    if (match === null) return protocolError('invalid chunk size line');
    const size = parseInt(match[1] as string, 16);
    if (!Number.isSafeInteger(size)) return protocolError('chunk size too large');
    if (size === 0) {
      this.state = State.Trailers;
    } else {
      this.state = State.ChunkData;
      this.remaining = size;
    }
    return next;
  }

  private readChunkData(data: Buffer, pos: number): number {
    const available = data.length - pos;
    if (available <= this.remaining) {
      this.remaining -= available;
      if (this.remaining === 0) {
        this.state = State.ChunkDataEnd;
        this.crlfSeen = 0;
      }
      this.sink.onResponseBody(pos === 0 ? data : data.subarray(pos));
      return data.length;
    }
    const end = pos + this.remaining;
    this.remaining = 0;
    this.state = State.ChunkDataEnd;
    this.crlfSeen = 0;
    this.sink.onResponseBody(data.subarray(pos, end));
    return end;
  }

  private readChunkDataEnd(data: Buffer, pos: number): number | UpstreamClientError {
    let at = pos;
    while (at < data.length && this.crlfSeen < 2) {
      if (data[at] !== (this.crlfSeen === 0 ? 13 : 10)) return protocolError('chunk data not followed by CRLF');
      this.crlfSeen += 1;
      at += 1;
    }
    if (this.crlfSeen === 2) this.state = State.ChunkSize;
    return at;
  }

  private readTrailers(data: Buffer, pos: number): number | UpstreamClientError {
    const next = this.readLine(data, pos, this.limits.maxHeaderSize);
    if (typeof next !== 'number') return next;
    const lineBytes = next === -1 ? data.length - pos : next - pos;
    this.trailerBytes += lineBytes;
    if (this.trailerBytes > this.limits.maxHeaderSize) return protocolError('trailer section larger than the limit');
    if (next === -1) return data.length;
    const line = this.line;
    this.line = '';
    if (line === '') {
      this.state = State.Done;
      this.sink.onResponseEnd(this.trailers);
      return next;
    }
    if (this.trailers === NO_TRAILERS) this.trailers = [];
    if (this.trailers.length / 2 >= this.limits.maxHeaderCount) return protocolError(`more than ${this.limits.maxHeaderCount} trailer fields`);
    const error = parseField(line, this.trailers);
    return error ?? next;
  }
}
