/**
 * The value of an unlabelled sample in the Prometheus text exposition format
 * (`name 42`), or undefined when the metric is absent. Enough for the gauges `status` reads;
 * not a general parser.
 */
export function metricValue(text: string, name: string): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (!rest.startsWith(' ')) continue;
    const value = Number(rest.trim().split(' ')[0]);
    if (Number.isFinite(value)) return value;
  }
  return undefined;
}
