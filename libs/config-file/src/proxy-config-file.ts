import { readFile, stat } from 'node:fs/promises';
import type * as Yaml from 'yaml';
import { CONFIG_SCHEMA_VERSION, fieldPathSegments, validateProxyConfig, type FieldError, type ProxyConfig } from '@gateway/route-model';
import { fastYamlValue } from './fast-yaml';

/**
 * The `yaml` package (every node with its position) is needed only for an invalid file's error
 * lines, a file with aliases and the `proxy:` block of a data plane that follows a control plane:
 * loaded at the first such use, so a valid proxy.yml starts without it (docs/data-plane.md).
 */
let yamlPackage: typeof Yaml | undefined;
function yaml(): typeof Yaml {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a synchronous lazy load; the callers are synchronous
  return (yamlPackage ??= require('yaml') as typeof Yaml);
}

/** A config error with the 1-based line of the offending node when the file has one. */
export interface ConfigFileError extends FieldError {
  line?: number;
}

export type ConfigFileResult =
  | { ok: true; config: ProxyConfig; /** The line of a field of this file, for later checks' errors. */ lineOf?(field: string): number | undefined }
  | { ok: false; errors: ConfigFileError[] };

/** Largest proxy.yml accepted; a config file is never legitimately this big. */
const MAX_CONFIG_BYTES = 5 * 1024 * 1024;

/**
 * Parses `proxy.yml` text and validates it with the route model. YAML problems and schema problems
 * come back together, each with a line number, so `config:validate` can list them all at once.
 * `yaml` refuses alias expansion bombs (maxAliasCount), which a hot-reloaded file needs.
 */
export function parseProxyConfigText(text: string): ConfigFileResult {
  const fast = fastYamlValue(text);
  if (fast !== undefined) {
    const result = validateProxyConfig(fast.value ?? {});
    // A valid file never keeps a document: lines are looked up (from a fresh one) only when asked for.
    if (result.ok) return { ok: true, config: result.value, lineOf: linesOnDemand(text) };
  }
  // Invalid (or not plain) text: the document gives every error its line.
  const lineCounter = new (yaml().LineCounter)();
  const doc = yaml().parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    return {
      ok: false,
      errors: doc.errors.map((e) => ({
        field: '(yaml)',
        code: 'INVALID_YAML',
        message: e.message.split('\n')[0] ?? e.message,
        line: lineCounter.linePos(e.pos[0]).line,
      })),
    };
  }
  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    return { ok: false, errors: [{ field: '(yaml)', code: 'INVALID_YAML', message: (error as Error).message }] };
  }
  const result = validateProxyConfig(raw ?? {});
  if (result.ok) return { ok: true, config: result.value, lineOf: (field) => lineOf(doc, lineCounter, field) };
  return {
    ok: false,
    errors: result.errors.map((e) => ({ ...e, line: lineOf(doc, lineCounter, e.field) })),
  };
}

/** Reads and parses a config file; a missing or unreadable file is an error, not a throw. */
export async function readProxyConfigFile(filePath: string): Promise<ConfigFileResult> {
  const read = await readConfigText(filePath);
  return read.ok ? parseProxyConfigText(read.text) : { ok: false, errors: read.errors };
}

/**
 * Only the `proxy:` block of a config file (a data plane following a control plane takes routes,
 * upstreams and authentication from it, and its listening settings from here). The rest of the
 * file is not validated: it belongs to the control plane. A missing file is `missing`.
 */
export async function readProxySettingsFile(filePath: string): Promise<ConfigFileResult | { ok: 'missing' }> {
  const read = await readConfigText(filePath);
  if (!read.ok) return read.missing ? { ok: 'missing' } : { ok: false, errors: read.errors };
  const lineCounter = new (yaml().LineCounter)();
  const doc = yaml().parseDocument(read.text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) return parseProxyConfigText(read.text);
  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    return { ok: false, errors: [{ field: '(yaml)', code: 'INVALID_YAML', message: (error as Error).message }] };
  }
  const proxy = typeof raw === 'object' && raw !== null ? (raw as { proxy?: unknown }).proxy : undefined;
  const result = validateProxyConfig({ version: CONFIG_SCHEMA_VERSION, ...(proxy === undefined || proxy === null ? {} : { proxy }) });
  if (result.ok) return { ok: true, config: result.value, lineOf: (field) => lineOf(doc, lineCounter, field) };
  return { ok: false, errors: result.errors.map((e) => ({ ...e, line: lineOf(doc, lineCounter, e.field) })) };
}

type TextRead = { ok: true; text: string } | { ok: false; missing: boolean; errors: ConfigFileError[] };

async function readConfigText(filePath: string): Promise<TextRead> {
  const refuse = (code: string, message: string): TextRead => ({ ok: false, missing: false, errors: [{ field: '(file)', code, message }] });
  try {
    // Refuse before reading: a huge file (or a device) must not be pulled into memory.
    const info = await stat(filePath);
    // A FIFO is fine (it is capped after reading); a device or directory is not a config file.
    if (!info.isFile() && !info.isFIFO()) return refuse('CONFIG_UNREADABLE', `${filePath} is not a regular file`);
    if (info.size > MAX_CONFIG_BYTES) return refuse('CONFIG_TOO_LARGE', `${filePath} is larger than ${MAX_CONFIG_BYTES} bytes`);
    const buffer = await readFile(filePath);
    if (buffer.length > MAX_CONFIG_BYTES) return refuse('CONFIG_TOO_LARGE', `${filePath} is larger than ${MAX_CONFIG_BYTES} bytes`);
    return { ok: true, text: buffer.toString('utf8') };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const read = refuse('CONFIG_UNREADABLE', `cannot read ${filePath}: ${code ?? (error as Error).message}`);
    return code === 'ENOENT' && !read.ok ? { ...read, missing: true } : read;
  }
}

/** Lines of fields of a file that parsed (later checks' errors), from a document built at the first question. */
function linesOnDemand(text: string): (field: string) => number | undefined {
  let parsed: { doc: Yaml.Document.Parsed; lineCounter: Yaml.LineCounter } | undefined;
  return (field) => {
    if (parsed === undefined) {
      const lineCounter = new (yaml().LineCounter)();
      parsed = { doc: yaml().parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true }), lineCounter };
    }
    return lineOf(parsed.doc, parsed.lineCounter, field);
  };
}

/** The line of the deepest node that exists along the error's field path. */
function lineOf(doc: Yaml.Document.Parsed, lineCounter: Yaml.LineCounter, field: string): number | undefined {
  const segments = fieldPathSegments(field);
  for (let depth = segments.length; depth > 0; depth -= 1) {
    const node = doc.getIn(segments.slice(0, depth), true) as { range?: [number, number, number] } | undefined;
    if (node && typeof node === 'object' && node.range) return lineCounter.linePos(node.range[0]).line;
  }
  return undefined;
}
