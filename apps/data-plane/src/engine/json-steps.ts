/**
 * JSON.parse in steps, for a document whose bulk sits in arrays at its top level (a control-plane
 * snapshot of 10,000 routes is megabytes, and one JSON.parse of it holds the event loop for tens
 * of milliseconds). The top-level object's structure is read here; each of its values, and each
 * element of a top-level array, is handed to JSON.parse on its own, one element a step (run with
 * runInSlices). Gives what JSON.parse gives for a valid document (keys such as `__proto__`
 * included, as own properties) and throws a SyntaxError for an invalid one. A document that is not
 * an object is parsed in one piece.
 */
export function* parseJsonSteps(text: string): Generator<void, unknown, void> {
  let at = skipSpace(text, 0);
  if (text.charCodeAt(at) !== OPEN_OBJECT) return JSON.parse(text) as unknown;
  const result: Record<string, unknown> = {};
  at = skipSpace(text, at + 1);
  if (text.charCodeAt(at) === CLOSE_OBJECT) return finish(text, at + 1, result);
  for (;;) {
    if (text.charCodeAt(at) !== QUOTE) throw syntaxError(at);
    const keyEnd = stringEnd(text, at);
    const key = JSON.parse(text.slice(at, keyEnd)) as string;
    at = skipSpace(text, keyEnd);
    if (text.charCodeAt(at) !== COLON) throw syntaxError(at);
    at = skipSpace(text, at + 1);
    let value: unknown;
    if (text.charCodeAt(at) === OPEN_ARRAY) {
      const items: unknown[] = [];
      at = skipSpace(text, at + 1);
      if (text.charCodeAt(at) === CLOSE_ARRAY) at += 1;
      else {
        for (;;) {
          const end = valueEnd(text, at);
          items.push(JSON.parse(text.slice(at, end)));
          yield;
          at = skipSpace(text, end);
          const next = text.charCodeAt(at);
          if (next === COMMA) at = skipSpace(text, at + 1);
          else if (next === CLOSE_ARRAY) {
            at += 1;
            break;
          } else throw syntaxError(at);
        }
      }
      value = items;
    } else {
      const end = valueEnd(text, at);
      value = JSON.parse(text.slice(at, end));
      at = end;
    }
    // As JSON.parse does: an own property even for "__proto__", the last of duplicate keys wins.
    Object.defineProperty(result, key, { value, enumerable: true, writable: true, configurable: true });
    at = skipSpace(text, at);
    const next = text.charCodeAt(at);
    if (next === COMMA) at = skipSpace(text, at + 1);
    else if (next === CLOSE_OBJECT) return finish(text, at + 1, result);
    else throw syntaxError(at);
  }
}

const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;

function syntaxError(at: number): SyntaxError {
  return new SyntaxError(`Unexpected token in JSON at position ${at}`);
}

/** Only whitespace may follow the document. */
function finish(text: string, at: number, result: Record<string, unknown>): Record<string, unknown> {
  const end = skipSpace(text, at);
  if (end !== text.length) throw syntaxError(end);
  return result;
}

function skipSpace(text: string, at: number): number {
  for (;;) {
    const c = text.charCodeAt(at);
    // space, tab, line feed, carriage return: JSON's only whitespace
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return at;
    at += 1;
  }
}

/** Index after the closing quote of the string opening at `at`. */
function stringEnd(text: string, at: number): number {
  for (let i = at + 1; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) i += 1;
    else if (c === QUOTE) return i + 1;
  }
  throw syntaxError(text.length);
}

/**
 * Index after the value starting at `at`: a string, an object or array (brackets counted outside
 * strings; whether they pair up properly is JSON.parse's to say), or a literal or number (up to
 * the next delimiter). The value itself is checked by JSON.parse.
 */
function valueEnd(text: string, at: number): number {
  const first = text.charCodeAt(at);
  if (first === QUOTE) return stringEnd(text, at);
  if (first === OPEN_OBJECT || first === OPEN_ARRAY) {
    let depth = 0;
    for (let i = at; i < text.length; i += 1) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) i = stringEnd(text, i) - 1;
      else if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth += 1;
      else if ((c === CLOSE_OBJECT || c === CLOSE_ARRAY) && (depth -= 1) === 0) return i + 1;
    }
    throw syntaxError(text.length);
  }
  let i = at;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === COMMA || c === CLOSE_ARRAY || c === CLOSE_OBJECT || c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) break;
    i += 1;
  }
  return i;
}
