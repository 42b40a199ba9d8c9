import { useEffect, useRef } from 'preact/hooks';
import type uPlot from 'uplot';

/** Line colours by position; styles.css gives `.swatch-N` the same (inline styles are refused by the CSP). */
const PALETTE = ['#0b5cad', '#b35c00', '#b42318', '#2f7d32'];

export interface TimeChartProps {
  /** The chart's accessible name; the numbers it draws are in the page's tables and figures too. */
  label: string;
  /** The lines' names, in the order of `values`. */
  lines: string[];
  /** Epoch seconds, ascending. */
  times: number[];
  /** One list per line, aligned with `times`; null where nothing is known. */
  values: (number | null)[][];
  unit: string;
  /** Palette positions of the lines (default 0, 1, 2...), so a line keeps its colour across charts. */
  colors?: number[];
}

const HEIGHT = 200;

// uPlot (about 20 KB gzipped) loads with the first chart, in its own chunk: pages without charts
// never pay for it (docs/admin-ui.md, size budget).
// Its stylesheet is in styles.css (a few hundred bytes), so no style is injected at run time (CSP).
let library: Promise<typeof uPlot> | undefined;
const loadLibrary = (): Promise<typeof uPlot> => (library ??= import('uplot').then((module) => (module as unknown as { default: typeof uPlot }).default));

/** A time series chart drawn by uPlot into a canvas; updates with new data without redrawing its frame. */
export function TimeChart({ label, lines, times, values, unit, colors }: TimeChartProps) {
  const colorOf = (i: number): number => (colors?.[i] ?? i) % PALETTE.length;
  const host = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | undefined>(undefined);
  const data = [times, ...values] as uPlot.AlignedData;

  useEffect(() => {
    let disposed = false;
    let observer: ResizeObserver | undefined;
    void loadLibrary().then((UPlot) => {
      const element = host.current;
      if (disposed || element === null) return;
      const options: uPlot.Options = {
        width: Math.max(element.clientWidth, 200),
        height: HEIGHT,
        legend: { show: false },
        cursor: { drag: { x: false, y: false } },
        scales: { x: { time: true } },
        axes: [{}, { label: unit, size: 60 }],
        series: [{}, ...lines.map((line, i) => ({ label: line, stroke: PALETTE[colorOf(i)], width: 2, spanGaps: false }))],
      };
      plot.current = new UPlot(options, data, element);
      observer = new ResizeObserver(() => plot.current?.setSize({ width: Math.max(element.clientWidth, 200), height: HEIGHT }));
      observer.observe(element);
    });
    return () => {
      disposed = true;
      observer?.disconnect();
      plot.current?.destroy();
      plot.current = undefined;
    };
  }, []);

  useEffect(() => {
    plot.current?.setData(data);
  });

  return (
    <figure class="chart">
      <figcaption>{label}</figcaption>
      <div class="chart-canvas" ref={host} role="img" aria-label={`${label}: ${lines.join(', ')}`} />
      <ul class="chart-legend" aria-hidden="true">
        {lines.map((line, i) => (
          <li key={line}>
            <span class={`swatch swatch-${colorOf(i)}`} />
            {line}
          </li>
        ))}
      </ul>
    </figure>
  );
}
