import type { GaugeDefinition, GaugeReading } from '../engine/ports';
import type { ExpositionWriter } from './exposition-writer';
import { escapeLabel } from './request-series';

/**
 * One scrape-time gauge (breaker states, target availability) written from its readings as they
 * come: one series per breaker is thousands of lines at 10,000 routes, and prom-client would
 * reset and rebuild a labelled value object for each of them on every scrape.
 */
export function* gaugeExposition(out: ExpositionWriter, definition: GaugeDefinition, readings: Iterable<GaugeReading>): Generator<Buffer, void, undefined> {
  const { name, labelNames } = definition;
  out.text(`# HELP ${name} ${escapeHelp(definition.help)}\n# TYPE ${name} gauge\n`);
  for (const reading of readings) {
    let line = name;
    if (labelNames.length > 0) {
      const pairs: string[] = [];
      for (let i = 0; i < labelNames.length; i += 1) pairs.push(`${labelNames[i] as string}="${escapeLabel(reading.labels[i] ?? '')}"`);
      line += `{${pairs.join(',')}}`;
    }
    out.text(`${line} `);
    out.number(reading.value);
    out.newline();
    if (out.hasCompleted) yield* out.takeCompleted();
  }
}

/** HELP text escaping of the text format: backslash and newline. */
function escapeHelp(help: string): string {
  return help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}
