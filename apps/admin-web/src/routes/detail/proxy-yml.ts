import { canonicalRouteInput } from '@gateway/route-model';
import type { Route } from '../../api/api-types';

/** Set by the server or by the file itself: not part of a proxy.yml entry. */
const NOT_IN_FILE = new Set(['source', 'createdAt', 'updatedAt', 'deletedAt', 'upstreamName']);

/**
 * The route as an entry of proxy.yml's `routes:` list, to copy into the file, in its input spelling
 * (a file is read by decision 7: a stored 0.5 % breaker threshold is written 0.005). Strings are written
 * as JSON strings, which YAML reads as double-quoted scalars, so no value needs escaping rules of
 * its own.
 */
export function proxyYmlEntry(route: Route): string {
  const entry = Object.fromEntries(Object.entries(canonicalRouteInput(route)).filter(([key, value]) => !NOT_IN_FILE.has(key) && value !== undefined));
  if (route.source === 'file' && route.upstreamName !== undefined) entry['upstream'] = route.upstreamName;
  return `routes:\n${listItem(entry, 1)}\n`;
}

function listItem(value: Record<string, unknown>, depth: number): string {
  const lines = objectLines(value, depth + 1);
  const pad = '  '.repeat(depth);
  return lines.length === 0 ? `${pad}- {}` : `${pad}- ${lines[0]?.trimStart() ?? ''}${lines.length > 1 ? `\n${lines.slice(1).join('\n')}` : ''}`;
}

function objectLines(value: Record<string, unknown>, depth: number): string[] {
  const pad = '  '.repeat(depth);
  const lines: string[] = [];
  for (const [key, item] of Object.entries(value)) {
    const name = /^[A-Za-z_][A-Za-z0-9_-]*$/.test(key) ? key : JSON.stringify(key);
    if (isObject(item)) {
      lines.push(Object.keys(item).length === 0 ? `${pad}${name}: {}` : `${pad}${name}:`, ...(Object.keys(item).length === 0 ? [] : objectLines(item, depth + 1)));
    } else if (Array.isArray(item)) {
      // Lists of scalars stay on one line (methods: ["GET", "POST"]), as the spec's examples write them.
      lines.push(`${pad}${name}: [${item.map((element) => scalar(element)).join(', ')}]`);
    } else {
      lines.push(`${pad}${name}: ${scalar(item)}`);
    }
  }
  return lines;
}

function scalar(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (isObject(value) || Array.isArray(value)) return JSON.stringify(value);
  return String(value);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
