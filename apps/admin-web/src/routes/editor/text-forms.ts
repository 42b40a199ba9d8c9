/**
 * The text forms of list and map fields: `a, b, c` for a list, one `Name: value` a line for a map.
 * What does not parse is kept as typed, so the route model reports it on the field.
 */

export function listText(value: unknown): string {
  return Array.isArray(value) ? value.map(String).join(', ') : '';
}

export function parseList(text: string, numeric: boolean): unknown[] | undefined {
  const items = text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  if (items.length === 0) return undefined;
  return numeric ? items.map((item) => (/^-?\d+(\.\d+)?$/.test(item) ? Number(item) : item)) : items;
}

export function mapText(value: unknown): string {
  if (typeof value !== 'object' || value === null) return '';
  return Object.entries(value as Record<string, unknown>)
    .map(([key, item]) => `${key}: ${String(item)}`)
    .join('\n');
}

export function parseMap(text: string): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const colon = line.indexOf(':');
    // A line without a colon is a name with an empty value: the model says what is wrong with it.
    if (colon === -1) out[line.trim()] = '';
    else out[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return Object.keys(out).length === 0 ? undefined : out;
}
