import type { ExpositionWriter } from './exposition-writer';
import type { Registry } from './prom-client-classes';

/** prom-client's value object of one label set (a counter's `hashMap` entry, as `get()` lists them). */
interface CounterValue {
  readonly value: number;
  readonly labels?: Readonly<Record<string, unknown>>;
}

/** A counter of ours in prom-client's registry, read (collected) but not yet written. */
export interface CounterPart {
  readonly name: string;
  readonly help: string;
  readonly values: readonly CounterValue[];
}

/** A metric as the registry holds it (`get()` collects it and lists its values). */
interface RegisteredMetric {
  get(): Promise<{ readonly name: string; readonly help: string; readonly values: readonly CounterValue[] }>;
}

/**
 * The part of prom-client's Registry that `registry.metrics()` is made of (lib/registry.js):
 * `getMetricsAsString` is not in its types. registry-exposition.spec.ts compares the text with
 * `registry.metrics()` byte for byte (re-check on a prom-client upgrade).
 */
interface RegistryInternals {
  getMetricsAsArray(): RegisteredMetric[];
  getMetricsAsString(metric: RegisteredMetric): Promise<string>;
}

/** The registry's families in its order: prom-client's text, or a counter of ours to write as bytes. */
export type RegistryParts = readonly (string | CounterPart)[];

/**
 * Each counter series' line up to its value (`name{a="x",b="y"} `) as bytes, by prom-client's
 * labels object of the series (one per series, kept while the series is). Weak: a reset or a
 * removed series takes its line with it.
 */
export type CounterLinePrefixes = WeakMap<object, Buffer>;

/**
 * The registry's families as prom-client's `registry.metrics()` lists them (same order, same
 * collects, in the same turn), except that the counters in `ownCounters` are only collected: their
 * lines are written by `registryLines`, from line prefixes made once per series. prom-client
 * builds every line of every series again on each scrape (a labels object walked, each value
 * escaped, a string joined): ~2,500 cache-lookup series at 10,000 routes, which the first scrape
 * after a start ran in V8's interpreter (issue 19, docs/data-plane.md "/metrics cardinality").
 * The registry must have no default labels (prom-client would add them to every line).
 */
export async function registryParts(registry: Registry, ownCounters: ReadonlySet<object>): Promise<RegistryParts> {
  const internals = registry as unknown as RegistryInternals;
  return Promise.all(
    internals.getMetricsAsArray().map(async (metric): Promise<string | CounterPart> => {
      if (!ownCounters.has(metric)) return internals.getMetricsAsString(metric);
      const { name, help, values } = await metric.get();
      return { name, help, values };
    }),
  );
}

/** The parts' text, byte for byte what `registry.metrics()` gives (families separated by a blank line, one newline at the end). */
export function* registryLines(out: ExpositionWriter, parts: RegistryParts, prefixes: CounterLinePrefixes): Generator<Buffer, void, undefined> {
  for (let i = 0; i < parts.length; i += 1) {
    if (i > 0) {
      out.newline();
      out.newline();
    }
    const part = parts[i] as string | CounterPart;
    if (typeof part === 'string') out.text(part);
    else yield* counterLines(out, part, prefixes);
  }
  out.newline();
}

/** One counter family as prom-client writes it (`getMetricsAsString`): HELP, TYPE, then a line per series, lines joined by newlines. */
function* counterLines(out: ExpositionWriter, { name, help, values }: CounterPart, prefixes: CounterLinePrefixes): Generator<Buffer, void, undefined> {
  const escapedName = escapeString(name);
  out.text(`# HELP ${escapedName} ${escapeString(help)}\n# TYPE ${escapedName} counter`);
  for (let i = 0; i < values.length; i += 1) {
    const series = values[i] as CounterValue;
    const labels = series.labels ?? EMPTY_LABELS;
    let prefix = prefixes.get(labels);
    if (prefix === undefined) {
      prefix = Buffer.from(linePrefix(escapedName, labels));
      prefixes.set(labels, prefix);
    }
    out.newline();
    out.bytes(prefix);
    writeValue(out, series.value);
    if (out.hasCompleted) yield* out.takeCompleted();
  }
}

const EMPTY_LABELS: Readonly<Record<string, unknown>> = {};

/** prom-client's `name{a="x",b="y"} ` (its formatLabels: the labels object's own keys in order, values escaped when strings). */
function linePrefix(name: string, labels: Readonly<Record<string, unknown>>): string {
  const pairs: string[] = [];
  for (const [label, value] of Object.entries(labels)) pairs.push(`${label}="${typeof value === 'string' ? escapeString(value).replace(/"/g, '\\"') : String(value)}"`);
  return pairs.length === 0 ? `${name} ` : `${name}{${pairs.join(',')}} `;
}

/** prom-client's value syntax (getValueAsString): `Nan` (sic), `+Inf`, `-Inf`, else as JavaScript prints it. */
function writeValue(out: ExpositionWriter, value: number): void {
  if (Number.isNaN(value)) out.ascii('Nan');
  else out.number(value);
}

/** prom-client's escaping of names, help and (before quotes) label values: backslash and newline. */
function escapeString(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}
