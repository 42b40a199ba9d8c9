import { Injectable } from '@nestjs/common';
import { DomainError } from '../common/domain-error';
import type { DataPlaneReport } from './cluster-series';
import { seriesOf, type SeriesPoint } from './monitoring-series';
import { summarize, type MonitoringSummary } from './monitoring-summary';
import { windowMs, type SeriesRequestQuery } from './monitoring.dto';
import { TelemetryIngest } from './telemetry-ingest.service';

/** The reach of each step: 15 minutes of seconds, 24 hours of minutes. */
const REACH_MS = { '1s': 900_000, '1m': 86_400_000 } as const;
/** Default span when `from` is omitted. */
const DEFAULT_SPAN_MS = { '1s': 300_000, '1m': 3_600_000 } as const;

function invalid(field: string, message: string): DomainError {
  return new DomainError('VALIDATION_ERROR', message, { fields: [{ field, message, code: 'VALIDATION_ERROR' }] });
}

/** Reads this instance's merged telemetry for the monitoring API. */
@Injectable()
export class MonitoringQueries {
  constructor(private readonly ingest: TelemetryIngest) {}

  summary(window = '5m'): MonitoringSummary {
    return summarize(this.ingest.series, windowMs(window), Date.now());
  }

  series(query: SeriesRequestQuery): { route: string | null; metric: string; step: string; points: SeriesPoint[] } {
    const step = query.step ?? '1s';
    const to = query.to === undefined ? Date.now() : Date.parse(query.to);
    if (query.from !== undefined && Date.parse(query.from) >= to) throw invalid('from', 'from must be before to');
    // Older than the step's series reach is not kept: the points start where the series does.
    const from = Math.max(query.from === undefined ? to - DEFAULT_SPAN_MS[step] : Date.parse(query.from), to - REACH_MS[step]);
    const points = seriesOf(this.ingest.series, { metric: query.metric, from, to, step, ...(query.route === undefined ? {} : { route: query.route }) });
    return { route: query.route ?? null, metric: query.metric, step, points };
  }

  dataPlanes(): DataPlaneReport[] {
    return this.ingest.series.dataPlanes();
  }
}
