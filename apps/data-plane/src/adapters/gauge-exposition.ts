import type { GaugeDefinition, GaugeReading } from '../engine/ports';
import type { ExpositionWriter } from './exposition-writer';
import { escapeLabel } from './request-series';

/**
 * Each series' line up to its value (`name{a="x",b="y"} `), by the reading's labels array. A reader
 * that yields the same array for a series on every scrape (the breakers do) has it escaped and
 * joined once instead of on every scrape: ~2,500 breaker series at 10,000 routes, where building
 * each line was the gauge's main cost (issue 19, docs/data-plane.md "/metrics cardinality"). Weak,
 * so a removed breaker's line goes with its array.
 */
export type GaugeLinePrefixes = WeakMap<readonly string[], string>;

/**
 * One scrape-time gauge (breaker states, target availability) written from its readings as they
 * come: one series per breaker is thousands of lines at 10,000 routes, and prom-client would
 * reset and rebuild a labelled value object for each of them on every scrape.
 */
export function* gaugeExposition(
  out: ExpositionWriter,
  definition: GaugeDefinition,
  readings: Iterable<GaugeReading>,
  prefixes: GaugeLinePrefixes = new WeakMap(),
): Generator<Buffer, void, undefined> {
  const { name } = definition;
  out.text(`# HELP ${name} ${escapeHelp(definition.help)}\n# TYPE ${name} gauge\n`);
  for (const reading of readings) {
    let prefix = prefixes.get(reading.labels);
    if (prefix === undefined) {
      prefix = linePrefix(definition, reading.labels);
      prefixes.set(reading.labels, prefix);
    }
    out.text(prefix);
    out.number(reading.value);
    out.newline();
    if (out.hasCompleted) yield* out.takeCompleted();
  }
}

/** A series' line up to its value, as the text format has it. */
function linePrefix({ name, labelNames }: GaugeDefinition, labels: readonly string[]): string {
  if (labelNames.length === 0) return `${name} `;
  const pairs: string[] = [];
  for (let i = 0; i < labelNames.length; i += 1) pairs.push(`${labelNames[i] as string}="${escapeLabel(labels[i] ?? '')}"`);
  return `${name}{${pairs.join(',')}} `;
}

/** HELP text escaping of the text format: backslash and newline. */
function escapeHelp(help: string): string {
  return help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}
