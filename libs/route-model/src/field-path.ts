/**
 * Field paths name the failing value in a FieldError: `routes[2].timeout.request`,
 * `headers.request.set["x.y"]`. They are strings so they travel in API error details as they are,
 * and `fieldPathSegments` turns them back into keys (the config loader uses it to find the YAML line).
 */

/** The field used for an error about the whole document or body. */
export const ROOT_FIELD = '(root)';

// Keys that read unambiguously after a dot; anything else is written as a JSON-quoted index.
const PLAIN_KEY = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

export function appendKey(path: string, key: string): string {
  if (PLAIN_KEY.test(key)) return path === '' ? key : `${path}.${key}`;
  return `${path}[${JSON.stringify(key)}]`;
}

export function appendIndex(path: string, index: number): string {
  return `${path}[${index}]`;
}

/** `prefix` + relative path: ('routes[3]', 'timeout.request') -> 'routes[3].timeout.request'. */
export function joinFieldPath(prefix: string, relative: string): string {
  if (prefix === '') return relative === '' ? ROOT_FIELD : relative;
  if (relative === '') return prefix;
  return relative.startsWith('[') ? `${prefix}${relative}` : `${prefix}.${relative}`;
}

/**
 * 'routes[2].timeout.request' -> ['routes', 2, 'timeout', 'request'];
 * 'a["x.y"]' -> ['a', 'x.y']; '' and '(root)' -> [].
 */
export function fieldPathSegments(field: string): Array<string | number> {
  const segments: Array<string | number> = [];
  if (field === ROOT_FIELD) return segments;
  let i = 0;
  while (i < field.length) {
    const c = field[i];
    if (c === '.') {
      i += 1;
    } else if (c === '[') {
      i = readBracket(field, i, segments);
    } else {
      let end = i;
      while (end < field.length && field[end] !== '.' && field[end] !== '[') end += 1;
      segments.push(field.slice(i, end));
      i = end;
    }
  }
  return segments;
}

/** Reads `[12]` or `["key"]` starting at `start`; returns the index after the closing bracket. */
function readBracket(field: string, start: number, out: Array<string | number>): number {
  if (field[start + 1] === '"') {
    let end = start + 2;
    while (end < field.length && field[end] !== '"') end += field[end] === '\\' ? 2 : 1;
    const quoted = field.slice(start + 1, end + 1);
    try {
      out.push(JSON.parse(quoted) as string);
    } catch {
      out.push(quoted);
    }
    return field[end + 1] === ']' ? end + 2 : end + 1;
  }
  const close = field.indexOf(']', start);
  const end = close === -1 ? field.length : close;
  const inner = field.slice(start + 1, end);
  out.push(/^\d+$/.test(inner) ? Number(inner) : inner);
  return end + 1;
}
