import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { DataSource } from 'typeorm';
import { encodeTelemetryWindow, LatencySketch, type ClusterSecond, type TelemetryWire } from '@gateway/events';
import { createTestDatabase, makeTempDir } from '@gateway/testing';
import type { DatabaseConfig } from '../config/control-plane-config';
import { dataSourceOptions } from '../database/data-source-options';
import { parseLeasesConfig } from '../config/leases-config';
import { Lease } from '../lease/lease.service';
import { migrate } from '../migrate';
import { TelemetryArchive } from './telemetry-archive.service';
import { ClusterSeries } from './cluster-series';
import { TelemetryIntervalEntity } from './telemetry-interval.entity';

const HOUR = 3_600_000;
const MINUTE = 60_000;

function window(start: number, latencies: number[]): TelemetryWire {
  const sketch = new LatencySketch();
  for (const ms of latencies) sketch.record(ms);
  return encodeTelemetryWindow({
    instanceId: 'dp-a',
    start,
    durationMs: 1000,
    address: 'a:1',
    version: '1',
    configRevision: 1,
    droppedWindows: 0,
    routes: [{ routeId: 'orders', requests: latencies.length, statusClasses: [latencies.length, 0, 0, 0], outcomes: [latencies.length, 0, 0, 0, 0, 0, 0], retries: 0, bytesIn: 7, bytesOut: 9, latency: sketch.toWire() }],
    upstreams: [],
    process: { heapUsedBytes: 0, rssBytes: 0, eventLoopLagMs: 0, openConnections: 0 },
  });
}

/** Two archives over one database, as two control-plane instances: both seal the same minute. */
async function archiveRoundTrip(database: DatabaseConfig, dataDir: string, env: NodeJS.ProcessEnv): Promise<void> {
  await migrate({ dataDir, env });
  const source = new DataSource(dataSourceOptions(database));
  await source.initialize();
  try {
    const repository = source.getRepository(TelemetryIntervalEntity);
    const now = Math.floor(Date.now() / MINUTE) * MINUTE;
    // A minute well inside the last 24 hours whose sealing never crosses an hour: crossing one would
    // seal (and persist) an hour too, whatever the wall clock says when the test runs.
    const minuteStart = Math.floor((now - 2 * HOUR) / HOUR) * HOUR + 10 * MINUTE;
    const instances = [0, 1].map(() => {
      let clock = minuteStart;
      const ingest = { series: new ClusterSeries(() => clock) };
      return { ingest, archive: new TelemetryArchive({ leases: parseLeasesConfig({}, []) }, new Lease(source), repository, ingest), setClock: (t: number) => (clock = t) };
    });
    for (const { ingest, archive, setClock } of instances) {
      const saved: Promise<void>[] = [];
      ingest.series.onRollup((resolution, interval) => saved.push(archive.save(resolution, interval)));
      setClock(minuteStart + 1000);
      ingest.series.ingest(window(minuteStart, [4, 8]));
      setClock(minuteStart + MINUTE + 6000);
      ingest.series.tick();
      await Promise.all(saved);
    }
    assert.equal(await repository.count(), 1, 'the second instance wrote the same minute: ignored');

    const restarted = { series: new ClusterSeries() };
    const archive = new TelemetryArchive({ leases: parseLeasesConfig({}, []) }, new Lease(source), repository, restarted);
    assert.equal(await archive.restore(Date.now()), 1);
    const [minute]: ClusterSecond[] = restarted.series.minutes(minuteStart, now);
    assert.deepEqual([minute.start, minute.durationMs, minute.total.requests, minute.routes[0].routeId, minute.routes[0].bytesOut], [minuteStart, MINUTE, 2, 'orders', 9]);
    assert.ok(Math.abs(minute.routes[0].latency.p50 - 4) / 4 <= 0.01, 'rank q·(n-1) of [4, 8]');
    assert.equal(minute.routes[0].latency.meanMs, 6);

    await archive.save('hour', { ...minute, start: now - 9 * 86_400_000, durationMs: 3_600_000 });
    await archive.save('minute', { ...minute, start: now - 2 * 86_400_000 });
    await archive.prune(Date.now());
    assert.deepEqual((await repository.find()).map((r) => [r.resolution, r.start]), [['minute', minuteStart]], 'an hour older than 8 days and a minute older than 24 hours are pruned');
  } finally {
    await source.destroy();
  }
}

test('SQLite: sealed minutes are persisted once across instances, restored at boot and pruned after 24 hours', async () => {
  const dir = makeTempDir();
  try {
    await archiveRoundTrip({ kind: 'sqlite', file: path.join(dir.path, 'gateway.sqlite') }, dir.path, {});
  } finally {
    dir.remove();
  }
});

test('PostgreSQL: sealed minutes are persisted once across instances, restored at boot and pruned after 24 hours', async () => {
  const database = await createTestDatabase('cp_telemetry');
  const dir = makeTempDir();
  try {
    await archiveRoundTrip({ kind: 'postgres', url: database.url }, dir.path, { DATABASE_URL: database.url });
  } finally {
    dir.remove();
    await database.drop();
  }
});
