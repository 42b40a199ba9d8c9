/**
 * A strict reader of the Prometheus text format 0.0.4, for tests of /metrics: every line must be
 * blank, a HELP or TYPE line, or a sample of the family its TYPE line declared, and the result
 * must make sense as metrics (no duplicate series, histogram buckets ascending and cumulative,
 * +Inf equal to _count). It throws on the first violation, naming the line; it is stricter than
 * Prometheus (which ignores other comments and accepts undeclared samples as untyped).
 */

export type PrometheusType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface PrometheusSample {
  /** The sample's own name (`x_bucket`, `x_sum` for a histogram `x`). */
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface PrometheusFamily {
  readonly name: string;
  readonly type: PrometheusType;
  readonly help: string | undefined;
  readonly samples: PrometheusSample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
/** Values as Prometheus reads them (Go's strconv.ParseFloat: NaN and Inf in any case; prom-client writes `Nan`). */
const FLOAT = /^(?:[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|nan|[+-]?inf(?:inity)?)$/i;
const TYPES: readonly PrometheusType[] = ['counter', 'gauge', 'histogram', 'summary', 'untyped'];

/** Parses `text`; throws an Error naming the line number of the first violation. */
export function parsePrometheusText(text: string): Map<string, PrometheusFamily> {
  if (text.length > 0 && !text.endsWith('\n')) throw new Error('the exposition does not end with a newline');
  const families = new Map<string, PrometheusFamily>();
  const helps = new Map<string, string>();
  const seriesSeen = new Set<string>();
  let current: PrometheusFamily | undefined;
  const lines = text.split('\n');
  lines.pop();
  lines.forEach((line, index) => {
    const fail = (why: string): never => {
      throw new Error(`line ${index + 1}: ${why}: ${JSON.stringify(line.slice(0, 200))}`);
    };
    if (line === '') return;
    if (line.startsWith('#')) {
      const comment = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line) ?? fail('only "# HELP name text" and "# TYPE name type" comments are expected');
      const [, kind, name, rest] = comment as unknown as [string, string, string, string];
      if (!METRIC_NAME.test(name)) fail('invalid metric name');
      if (kind === 'HELP') {
        if (helps.has(name)) fail('a second HELP for this metric');
        helps.set(name, unescape(rest, false, fail));
        return;
      }
      if (!TYPES.includes(rest as PrometheusType)) fail('unknown type');
      if (families.has(name)) fail('a second TYPE for this metric');
      current = { name, type: rest as PrometheusType, help: undefined, samples: [] };
      families.set(name, current);
      return;
    }
    const sample = parseSample(line, fail);
    const family = current ?? fail('a sample before any TYPE line');
    // Only the family of the last TYPE line: a family's samples are together, after its TYPE line.
    if (!belongsTo(sample.name, family)) fail(`a sample that is not part of ${family.type} ${family.name}`);
    const key = `${sample.name}{${Object.keys(sample.labels).sort().map((k) => `${k}=${JSON.stringify(sample.labels[k])}`).join(',')}}`;
    if (seriesSeen.has(key)) fail('a duplicate series');
    seriesSeen.add(key);
    if ((family.type === 'counter' || sample.name.endsWith('_count') || sample.name.endsWith('_bucket')) && !(sample.value >= 0)) fail('a count below zero');
    family.samples.push(sample);
  });
  const withHelp = new Map<string, PrometheusFamily>();
  for (const [name, family] of families) {
    if (family.type === 'histogram') checkHistogram(family);
    withHelp.set(name, { ...family, help: helps.get(name) });
  }
  for (const name of helps.keys()) if (!families.has(name)) throw new Error(`HELP for ${name}, which has no TYPE line`);
  return withHelp;
}

function belongsTo(sampleName: string, family: PrometheusFamily): boolean {
  if (sampleName === family.name) return family.type !== 'histogram';
  if (family.type === 'histogram') return [`${family.name}_bucket`, `${family.name}_sum`, `${family.name}_count`].includes(sampleName);
  if (family.type === 'summary') return [`${family.name}_sum`, `${family.name}_count`].includes(sampleName);
  return false;
}

function parseSample(line: string, fail: (why: string) => never): PrometheusSample {
  const name = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line)?.[0] ?? fail('a sample without a metric name');
  let at = name.length;
  const labels: Record<string, string> = {};
  if (line[at] === '{') {
    at += 1;
    while (line[at] !== '}') {
      const labelName = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(line.slice(at))?.[0] ?? fail(`a label name expected at column ${at + 1}`);
      if (!LABEL_NAME.test(labelName) || labelName.startsWith('__')) fail(`reserved or invalid label name ${labelName}`);
      at += labelName.length;
      if (line.slice(at, at + 2) !== '="') fail(`="..." expected after label ${labelName}`);
      at += 2;
      let raw = '';
      while (line[at] !== '"') {
        if (at >= line.length) fail(`unterminated value of label ${labelName}`);
        if (line[at] === '\\') {
          raw += line.slice(at, at + 2);
          at += 2;
        } else {
          raw += line[at];
          at += 1;
        }
      }
      at += 1;
      if (Object.prototype.hasOwnProperty.call(labels, labelName)) fail(`label ${labelName} twice`);
      labels[labelName] = unescape(raw, true, fail);
      if (line[at] === ',') at += 1;
      else if (line[at] !== '}') fail(`, or } expected at column ${at + 1}`);
    }
    at += 1;
  }
  const rest = line.slice(at);
  const parts = /^ (\S+)(?: (-?\d+))?$/.exec(rest) ?? fail('one space, a value and an optional timestamp expected after the labels');
  const valueText = parts[1] as string;
  if (!FLOAT.test(valueText)) fail(`invalid value ${valueText}`);
  return { name, labels, value: floatValue(valueText) };
}

/** A value FLOAT accepted, as a number. */
function floatValue(text: string): number {
  const lower = text.toLowerCase();
  if (lower === 'nan') return NaN;
  if (/^[+-]?inf/.test(lower)) return lower.startsWith('-') ? -Infinity : Infinity;
  return Number(text);
}

/** Label values escape backslash, double quote and newline; HELP text backslash and newline; nothing else. */
function unescape(raw: string, quoted: boolean, fail: (why: string) => never): string {
  let out = '';
  for (let i = 0; i < raw.length; i += 1) {
    const c = raw[i];
    if (c === '\n') fail('a raw newline');
    if (c !== '\\') {
      out += c;
      continue;
    }
    const next = raw[i + 1];
    if (next === '\\') out += '\\';
    else if (next === 'n') out += '\n';
    else if (next === '"' && quoted) out += '"';
    else fail(`an invalid escape \\${next ?? ''}`);
    i += 1;
  }
  return out;
}

/** Every series of a histogram: buckets by ascending `le`, cumulative counts, +Inf last and equal to _count, a _sum. */
function checkHistogram(family: PrometheusFamily): void {
  const series = new Map<string, { buckets: Array<{ le: number; value: number }>; sum?: number; count?: number }>();
  for (const sample of family.samples) {
    const { le, ...rest } = sample.labels;
    const key = JSON.stringify(Object.keys(rest).sort().map((k) => [k, rest[k]]));
    let entry = series.get(key);
    if (entry === undefined) {
      entry = { buckets: [] };
      series.set(key, entry);
    }
    if (sample.name.endsWith('_bucket')) {
      if (le === undefined || !FLOAT.test(le)) throw new Error(`${family.name} ${key}: a bucket without a valid le`);
      entry.buckets.push({ le: floatValue(le), value: sample.value });
    } else if (le !== undefined) {
      throw new Error(`${sample.name} ${key}: le on a sample that is not a bucket`);
    } else if (sample.name.endsWith('_sum')) {
      entry.sum = sample.value;
    } else {
      entry.count = sample.value;
    }
  }
  for (const [key, entry] of series) {
    const where = `${family.name} ${key}`;
    if (entry.sum === undefined || entry.count === undefined) throw new Error(`${where}: _sum or _count missing`);
    const last = entry.buckets[entry.buckets.length - 1];
    if (last === undefined || last.le !== Infinity) throw new Error(`${where}: no le="+Inf" bucket last`);
    if (last.value !== entry.count) throw new Error(`${where}: +Inf bucket ${last.value} is not _count ${entry.count}`);
    for (let i = 1; i < entry.buckets.length; i += 1) {
      const [before, after] = [entry.buckets[i - 1], entry.buckets[i]] as [{ le: number; value: number }, { le: number; value: number }];
      if (!(after.le > before.le)) throw new Error(`${where}: le ${after.le} after ${before.le}`);
      if (after.value < before.value) throw new Error(`${where}: bucket le=${after.le} (${after.value}) below le=${before.le} (${before.value}): not cumulative`);
    }
  }
}

/** The value of every sample by `name{sorted labels}`, to compare two scrapes. */
export function prometheusSampleValues(families: ReadonlyMap<string, PrometheusFamily>): Map<string, number> {
  const values = new Map<string, number>();
  for (const family of families.values()) {
    for (const sample of family.samples) {
      const labels = Object.keys(sample.labels).sort().map((k) => `${k}=${JSON.stringify(sample.labels[k])}`).join(',');
      values.set(`${sample.name}{${labels}}`, sample.value);
    }
  }
  return values;
}
