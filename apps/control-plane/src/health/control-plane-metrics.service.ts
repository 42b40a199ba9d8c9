import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { BUS_DROPS_METRIC, type MessageBus } from '@gateway/events';
import { RouteSnapshotBuilder } from '../cluster/route-snapshot.builder';
import { MESSAGE_BUS } from '../config/config.tokens';

/**
 * The control-plane role's /metrics. `gateway_config_revision` and `gateway_routes` carry the data
 * plane's names and meaning for the configuration this control plane hands out (the revision and
 * the enabled, not deleted routes of its snapshot), so `gateway status` reads every role the same
 * way and a dashboard can compare a data plane's revision with its control plane's.
 */
@Injectable()
export class ControlPlaneMetrics implements OnModuleDestroy {
  readonly registry = new Registry();

  constructor(snapshots: RouteSnapshotBuilder, @Inject(MESSAGE_BUS) bus: MessageBus) {
    collectDefaultMetrics({ register: this.registry });
    // Read at scrape time, both in one transaction (the snapshot's), so the pair describes one revision.
    let current: Promise<{ revision: number; routes: number }> | undefined;
    const read = (): Promise<{ revision: number; routes: number }> => (current ??= snapshots.counts().finally(() => (current = undefined)));
    new Gauge({
      name: 'gateway_config_revision',
      help: 'The configuration revision in the store (what data planes converge to)',
      registers: [this.registry],
      async collect() {
        this.set((await read()).revision);
      },
    });
    new Gauge({
      name: 'gateway_routes',
      help: 'Enabled, not deleted routes in the store (the routes of the snapshot data planes serve)',
      registers: [this.registry],
      async collect() {
        this.set((await read()).routes);
      },
    });
    // Presence, command replies and events that failed authentication (SignedBus), read at scrape time.
    const drops: Counter<'reason'> = new Counter({
      ...BUS_DROPS_METRIC,
      labelNames: ['reason'] as const,
      registers: [this.registry],
      collect() {
        drops.reset();
        for (const [reason, count] of Object.entries(bus.dropCounts?.() ?? {})) drops.labels(reason).inc(count);
      },
    });
  }

  metrics(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  onModuleDestroy(): void {
    this.registry.clear();
  }
}
