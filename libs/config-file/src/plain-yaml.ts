import { corePlainScalar } from './core-scalars';

/**
 * A reader for the YAML a proxy.yml is written in (issue 19: start-up at 10,000 routes): block
 * mappings and sequences indented with spaces, plain, single- and double-quoted scalars, flow
 * collections `{ a: 1 }` and `[GET]` on one line, comments. Anything else (anchors, tags, block
 * scalars `|` `>`, multi-line scalars or flow collections, tabs, CR, documents, `?` keys, merge
 * keys, `__proto__`, a duplicate key, a key that is not a string, any doubt) returns undefined,
 * and the caller reads the text with js-yaml, then with the `yaml` document for errors and their
 * lines. So this reader never reports an error: it gives the value `yaml` gives, or gives up.
 * Values are those of the YAML 1.2 core schema as `yaml` reads them (core-scalars.ts).
 * It is ~4x faster than js-yaml on a large file and allocates only the values.
 */
export function readPlainYaml(text: string): { value: unknown } | undefined {
  if (!plainCharacters(text)) return undefined;
  try {
    const reader = new BlockReader(text);
    if (reader.finished()) return undefined;
    const value = reader.block(0);
    return reader.finished() ? { value } : undefined;
  } catch (error) {
    if (error === GIVE_UP) return undefined;
    throw error;
  }
}

/** Thrown inside the reader when the text leaves the subset; caught once, at the top. */
const GIVE_UP: unique symbol = Symbol('give up');

function giveUp(): never {
  throw GIVE_UP;
}

/**
 * No tab, CR, BOM, control character, C1 character, line or paragraph separator or surrogate
 * (non-BMP text): the rules for those (and their errors) are left to the full parsers.
 */
function plainCharacters(text: string): boolean {
  // One native scan: a loop over a 2 MB file would run in the interpreter at start-up.
  return !NOT_PLAIN_CHARACTER.test(text);
}

const NOT_PLAIN_CHARACTER = /[\x00-\x09\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufeff\u2028\u2029]/;

/** Keys that change what an object is (`__proto__`) or mean a merge (`<<`): left to the full parsers. */
const SPECIAL_KEYS = new Set(['__proto__', '<<']);

/**
 * Reads blocks line by line over the text itself: the current line is a few offsets, never a
 * string or an object (a 10,000-route file has ~90,000 lines; the garbage collector would copy
 * every one of them while the values are built).
 */
class BlockReader {
  /** Start of the current line. */
  private lineStart = 0;
  /** Where the current line's content starts (after its indentation, or after a sequence entry's `- `). */
  private start = 0;
  /** End of its content (trailing spaces excluded). */
  private end = 0;
  /** Start of the line after it. */
  private next = 0;
  private atEnd = false;

  constructor(private readonly text: string) {
    this.seek(0);
  }

  /** True when every line was read. */
  finished(): boolean {
    return this.atEnd;
  }

  /** The current line's column (its indentation, or where a `- ` entry's mapping starts). */
  private get column(): number {
    return this.start - this.lineStart;
  }

  /** The block (mapping or sequence) whose lines start at `indent` on the current line. */
  block(indent: number): unknown {
    if (this.atEnd || this.column !== indent) giveUp();
    return this.isEntry() ? this.sequence(indent) : this.mapping(indent);
  }

  /** Moves to the first line with something on it (not blank, not only a comment) from `from`. */
  private seek(from: number): void {
    const text = this.text;
    let lineStart = from;
    while (lineStart < text.length) {
      let lineEnd = text.indexOf('\n', lineStart);
      if (lineEnd === -1) lineEnd = text.length;
      let start = lineStart;
      while (start < lineEnd && text.charCodeAt(start) === 32) start += 1;
      let end = lineEnd;
      while (end > start && text.charCodeAt(end - 1) === 32) end -= 1;
      if (end > start && text.charCodeAt(start) !== 35 /* # */) {
        // Directives and document markers (`---`, `...`, `%YAML`): left to the full parsers.
        if (start === lineStart && (text.startsWith('---', start) || text.startsWith('...', start) || text.charCodeAt(start) === 37)) giveUp();
        this.lineStart = lineStart;
        this.start = start;
        this.end = end;
        this.next = lineEnd + 1;
        return;
      }
      lineStart = lineEnd + 1;
    }
    this.atEnd = true;
  }

  private advance(): void {
    this.seek(this.next);
  }

  private isEntry(): boolean {
    return this.text.charCodeAt(this.start) === 45 /* - */ && (this.start + 1 === this.end || this.text.charCodeAt(this.start + 1) === 32);
  }

  private mapping(indent: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    while (!this.atEnd && this.column === indent && !this.isEntry()) {
      const reader = new InlineReader(this.text, this.start, this.end);
      const key = reader.key();
      if (reader.atEnd()) {
        // `key:` alone: a nested block below (more indented, or a sequence at the same indent), or null.
        this.advance();
        const nested = !this.atEnd && (this.column > indent || (this.column === indent && this.isEntry()));
        setKey(out, key, nested ? this.block(this.column) : null);
      } else {
        setKey(out, key, reader.lineValue());
        this.advance();
      }
    }
    this.expectDedent(indent);
    return out;
  }

  private sequence(indent: number): unknown[] {
    const out: unknown[] = [];
    const text = this.text;
    while (!this.atEnd && this.column === indent && this.isEntry()) {
      let rest = this.start + 1;
      while (rest < this.end && text.charCodeAt(rest) === 32) rest += 1;
      if (rest === this.end) {
        this.advance();
        out.push(!this.atEnd && this.column > indent ? this.block(this.column) : null);
        continue;
      }
      const first = text.charCodeAt(rest);
      // `- - a` and `- # comment`: left to the full parsers.
      if ((first === 45 && (rest + 1 === this.end || text.charCodeAt(rest + 1) === 32)) || first === 35) giveUp();
      if (startsMapping(text, rest, this.end)) {
        // `- id: r-0`: a mapping whose lines start where `id` does.
        this.start = rest;
        out.push(this.mapping(this.column));
      } else {
        out.push(new InlineReader(text, rest, this.end).lineValue());
        this.advance();
      }
    }
    this.expectDedent(indent);
    return out;
  }

  /** After a block, the next line must belong to an enclosing one (less indented), or to a mapping around a same-indent sequence. */
  private expectDedent(indent: number): void {
    if (!this.atEnd && this.column > indent) giveUp();
  }
}

/** `key:` or `key: ...` with a plain or quoted key (not a flow collection or a scalar alone). */
function startsMapping(text: string, start: number, end: number): boolean {
  const first = text.charCodeAt(start);
  if (first === 123 /* { */ || first === 91 /* [ */) return false;
  if (first === 34 /* " */ || first === 39 /* ' */) {
    const reader = new InlineReader(text, start, end);
    reader.scalar(false);
    return reader.atColon();
  }
  const colon = text.indexOf(':', start);
  return colon > start && colon < end && (colon === end - 1 || text.charCodeAt(colon + 1) === 32);
}

function setKey(out: Record<string, unknown>, key: string, value: unknown): void {
  if (Object.hasOwn(out, key) || SPECIAL_KEYS.has(key)) giveUp();
  out[key] = value;
}

/** Characters that may not start a plain scalar (or that this reader leaves to the full parsers), by code. */
const NOT_PLAIN_START = new Uint8Array(128);
for (const c of '-?:,[]{}#&*!|>\'"%@`') NOT_PLAIN_START[c.charCodeAt(0)] = 1;

/** A digit or `.` after a `-`: `-12`, `-.5`, `-.inf` are plain scalars. */
function isNumberStart(code: number): boolean {
  return code === 46 || (code >= 48 && code <= 57);
}

/** Reads one line's inline YAML, `text` from `pos` to `limit`: keys, scalars and flow collections. */
class InlineReader {
  constructor(
    private readonly text: string,
    private pos: number,
    private readonly limit: number,
  ) {}

  /** True when only spaces (or a comment) are left. */
  atEnd(): boolean {
    this.spaces();
    return this.pos >= this.limit || (this.text.charCodeAt(this.pos) === 35 && this.text.charCodeAt(this.pos - 1) === 32);
  }

  atColon(): boolean {
    return this.pos < this.limit && this.text.charCodeAt(this.pos) === 58 && (this.pos + 1 === this.limit || this.text.charCodeAt(this.pos + 1) === 32);
  }

  /** A block mapping key and its `:`; the key must read as a string. */
  key(): string {
    const key = this.scalar(false);
    if (typeof key !== 'string' || !this.atColon()) giveUp();
    this.pos += 1;
    return key;
  }

  /** The value after `key: ` or `- `: the rest of the line. */
  lineValue(): unknown {
    this.spaces();
    const value = this.value(false);
    if (!this.atEnd()) giveUp();
    return value;
  }

  /** A scalar or flow collection; `inFlow` inside `[...]` / `{...}`. */
  private value(inFlow: boolean): unknown {
    if (this.pos >= this.limit) giveUp();
    const c = this.text.charCodeAt(this.pos);
    if (c === 123 /* { */) return this.flowMapping();
    if (c === 91 /* [ */) return this.flowSequence();
    return this.scalar(inFlow);
  }

  /** A quoted or plain scalar; plain ones end at ` #`, `: ` (or `:` last) and, in flow, at `,` `]` `}`. */
  scalar(inFlow: boolean): unknown {
    const text = this.text;
    const limit = this.limit;
    if (this.pos >= limit) giveUp();
    const c = text.charCodeAt(this.pos);
    if (c === 34 /* " */) return this.doubleQuoted();
    if (c === 39 /* ' */) return this.singleQuoted();
    if (c < 128 && NOT_PLAIN_START[c] === 1 && !(c === 45 /* - */ && isNumberStart(text.charCodeAt(this.pos + 1)))) giveUp();
    const start = this.pos;
    let end = start;
    for (; end < limit; end += 1) {
      const ch = text.charCodeAt(end);
      if (ch === 58 /* : */ && (end + 1 === limit || text.charCodeAt(end + 1) === 32 || (inFlow && isFlowEnd(text.charCodeAt(end + 1))))) break;
      if (ch === 35 /* # */ && text.charCodeAt(end - 1) === 32) break;
      if (inFlow && isFlowEnd(ch)) break;
      // Left to the full parsers: flow indicators inside a plain scalar.
      if (ch === 123 || ch === 125 || ch === 91 || ch === 93) giveUp();
    }
    let last = end;
    while (last > start && text.charCodeAt(last - 1) === 32) last -= 1;
    this.pos = end;
    return corePlainScalar(text.slice(start, last));
  }

  private doubleQuoted(): string {
    const text = this.text;
    let out = '';
    let from = this.pos + 1;
    for (let i = from; i < this.limit; i += 1) {
      const ch = text.charCodeAt(i);
      if (ch === 34) {
        this.pos = i + 1;
        return out + text.slice(from, i);
      }
      if (ch === 92 /* \ */) {
        out += text.slice(from, i) + escaped(text, i + 1);
        i += text[i + 1] === 'u' ? 5 : 1;
        from = i + 1;
      }
    }
    return giveUp();
  }

  private singleQuoted(): string {
    const text = this.text;
    let out = '';
    let from = this.pos + 1;
    for (let i = from; i < this.limit; i += 1) {
      if (text.charCodeAt(i) !== 39) continue;
      if (text.charCodeAt(i + 1) === 39) {
        out += text.slice(from, i + 1);
        i += 1;
        from = i + 1;
        continue;
      }
      this.pos = i + 1;
      return out + text.slice(from, i);
    }
    return giveUp();
  }

  private flowMapping(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.pos += 1;
    this.spaces();
    if (this.take(125 /* } */)) return out;
    for (;;) {
      const key = this.scalar(true);
      if (typeof key !== 'string' || this.text.charCodeAt(this.pos) !== 58) giveUp();
      this.pos += 1;
      this.spaces();
      const next = this.text.charCodeAt(this.pos);
      setKey(out, key, next === 44 || next === 125 ? null : this.value(true));
      this.spaces();
      if (this.take(125)) return out;
      if (!this.take(44 /* , */)) giveUp();
      this.spaces();
      // A trailing comma, an empty entry: left to the full parsers.
      if (isFlowEnd(this.text.charCodeAt(this.pos))) giveUp();
    }
  }

  private flowSequence(): unknown[] {
    const out: unknown[] = [];
    this.pos += 1;
    this.spaces();
    if (this.take(93 /* ] */)) return out;
    for (;;) {
      out.push(this.value(true));
      this.spaces();
      // `[a: 1]` (a single-pair mapping in a sequence): left to the full parsers.
      if (this.text.charCodeAt(this.pos) === 58) giveUp();
      if (this.take(93)) return out;
      if (!this.take(44)) giveUp();
      this.spaces();
      if (isFlowEnd(this.text.charCodeAt(this.pos))) giveUp();
    }
  }

  private take(code: number): boolean {
    if (this.pos >= this.limit || this.text.charCodeAt(this.pos) !== code) return false;
    this.pos += 1;
    return true;
  }

  private spaces(): void {
    while (this.pos < this.limit && this.text.charCodeAt(this.pos) === 32) this.pos += 1;
  }
}

function isFlowEnd(code: number): boolean {
  return code === 44 /* , */ || code === 93 /* ] */ || code === 125 /* } */;
}

/** The escapes of a double-quoted scalar this reader knows; any other is left to the full parsers. */
const ESCAPES: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', n: '\n', t: '\t', r: '\r', '0': '\0', ' ': ' ' };

function escaped(text: string, at: number): string {
  const letter = text[at];
  if (letter === 'u') {
    const hex = text.slice(at + 1, at + 5);
    if (!/^[0-9a-fA-F]{4}$/.test(hex)) giveUp();
    const code = parseInt(hex, 16);
    // A surrogate half needs its pair (and the parsers' rules for a lone one).
    if (code >= 0xd800 && code <= 0xdfff) giveUp();
    return String.fromCharCode(code);
  }
  const simple = letter === undefined ? undefined : ESCAPES[letter];
  return simple ?? giveUp();
}
