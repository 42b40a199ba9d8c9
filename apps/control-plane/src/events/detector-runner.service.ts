import { hostname } from 'node:os';
import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DETECTORS, DetectorEngine, defaultEventSettings, durationMs, type EmittedEvent, type EventSettings, type ProcessTick } from '@gateway/events';
import { BreakerOpeningGroups } from '../gateway-events/breaker-opening-groups.service';
import type { AnyGatewayEvent } from '../gateway-events/gateway-event';
import { GatewayEventPublisher } from '../gateway-events/gateway-event-publisher.service';
import { OnGatewayEvent } from '../gateway-events/on-gateway-event.decorator';
import { LeasedInterval } from '../lease/leased-interval';
import { Lease, type LeaseGrant } from '../lease/lease.service';
import { TelemetryIngest } from '../monitoring/telemetry-ingest.service';
import { LiveSettings } from '../settings/live-settings.service';
import { DetectorStateStore } from './detector-state-store.service';
import { EVENTS_SECTION_KEY } from './events-settings.section';
import { ControlPlaneGauges, hostMemoryLimitBytes } from './host-gauges';
import { TickCollector } from './tick-collector';

/** The lease under which one control-plane instance runs the detectors. */
export const DETECTORS_LEASE = 'events.detectors';
const LEASE_TTL_MS = 15_000;
/** The state is written at most this often (and after every evaluation that raised an event). */
const SAVE_EVERY_MS = 60_000;

/**
 * Runs the detectors (libs/events) on the cluster's telemetry: every instance sums the sealed
 * seconds into ticks; the holder of the `events.detectors` lease evaluates them, raises the events
 * (ids derived from the incident, so a handover that evaluates a tick twice raises the same ids,
 * which the store and the webhook queue dedupe) and persists baselines and incidents, fenced by
 * its lease token. A new holder reads them back and goes on from the last evaluated tick.
 */
@Injectable()
export class DetectorRunner implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Detectors');
  private settings: EventSettings = defaultEventSettings();
  private readonly engine = new DetectorEngine(DETECTORS, this.settings);
  private readonly collector = new TickCollector(durationMs(this.settings.evaluationInterval, 10_000));
  private readonly gauges = new ControlPlaneGauges(`${hostname()}:${process.pid}`);
  private readonly memoryLimit = hostMemoryLimitBytes();
  private readonly openedBreakerRoutes = new Set<string>();
  private readonly unsubscribe: Array<() => void> = [];
  private readonly leased: LeasedInterval;
  private timer: NodeJS.Timeout | undefined;
  /** The grant under which the engine's state was loaded; another grant reloads it. */
  private loadedUnder: number | undefined;
  private evaluatedUntil = 0;
  private lastSave = 0;

  constructor(
    private readonly ingest: TelemetryIngest,
    private readonly live: LiveSettings,
    private readonly publisher: GatewayEventPublisher,
    private readonly breakerOpenings: BreakerOpeningGroups,
    lease: Lease,
    private readonly stateStore: DetectorStateStore,
  ) {
    this.leased = new LeasedInterval(lease, { name: DETECTORS_LEASE, ttlMs: LEASE_TTL_MS, renewMs: 1000, intervalMs: 1000, job: (grant) => this.evaluateDue(grant) }, this.logger);
  }

  onApplicationBootstrap(): void {
    this.unsubscribe.push(this.live.onChange((settings) => this.configure((settings.section(EVENTS_SECTION_KEY) as EventSettings | undefined) ?? defaultEventSettings())));
    this.unsubscribe.push(this.ingest.series.onSecond((second) => this.collector.add(second)));
    this.timer = setInterval(() => this.collector.close(this.ingest.series.sealedUntil, () => this.processes()), 1000);
    this.timer.unref();
    void this.leased.start();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    for (const off of this.unsubscribe.splice(0)) off();
    await this.leased.stop();
    this.gauges.stop();
  }

  /** A breaker that opened mutes its routes' error and latency events (the tick may not show it yet). */
  @OnGatewayEvent('circuit_breaker.opened')
  onBreakerOpened(event: AnyGatewayEvent): void {
    const routeIds = event.data['routeIds'];
    if (Array.isArray(routeIds)) for (const routeId of routeIds) if (typeof routeId === 'string') this.openedBreakerRoutes.add(routeId);
  }

  private configure(settings: EventSettings): void {
    this.settings = settings;
    this.engine.configure(settings);
    this.collector.setInterval(durationMs(settings.evaluationInterval, 10_000));
    this.breakerOpenings.configure(durationMs(settings.breakerGroupWindow, 30_000));
  }

  private processes(): ProcessTick[] {
    const planes: ProcessTick[] = this.ingest.series
      .dataPlanes()
      .filter((plane) => plane.status === 'live')
      .map((plane) => ({ instanceId: plane.instanceId, role: 'data-plane', rssBytes: plane.process.rssBytes, eventLoopLagMs: plane.process.eventLoopLagMs, openConnections: plane.process.openConnections }));
    return [...planes, this.gauges.sample()];
  }

  private async evaluateDue(grant: LeaseGrant): Promise<void> {
    if (this.loadedUnder !== grant.token) await this.load(grant);
    const ticks = this.collector.takeAfter(this.evaluatedUntil);
    if (!this.settings.enabled || ticks.length === 0) return;
    const raised: EmittedEvent[] = [];
    for (const tick of ticks) {
      const result = this.engine.evaluate(tick, { openedBreakerRoutes: this.openedBreakerRoutes, hostMemoryLimitBytes: this.memoryLimit });
      this.openedBreakerRoutes.clear();
      raised.push(...result.events);
      this.evaluatedUntil = tick.start + tick.durationMs;
    }
    // Persist before raising: a crash in between re-raises the same ids, never loses an incident.
    if ((raised.length > 0 || Date.now() - this.lastSave >= SAVE_EVERY_MS) && !(await this.save(grant))) return;
    for (const emitted of raised) this.publisher.forward(toGatewayEvent(emitted));
  }

  private async load(grant: LeaseGrant): Promise<void> {
    const stored = await this.stateStore.load();
    if (stored !== undefined) {
      const { reset } = this.engine.restore(stored.state);
      if (reset.length > 0) this.logger.warn(`detector state unusable for ${reset.join(', ')}: those detectors learn again`);
      this.evaluatedUntil = Math.max(this.evaluatedUntil, stored.evaluatedUntilMs);
    }
    this.loadedUnder = grant.token;
  }

  /** False when the lease moved on: nothing is written and nothing raised. */
  private async save(grant: LeaseGrant): Promise<boolean> {
    if (!(await this.stateStore.save(grant, this.engine.snapshot(), this.evaluatedUntil))) {
      this.loadedUnder = undefined;
      return false;
    }
    this.lastSave = Date.now();
    return true;
  }
}

/** The envelope every consumer gets: for a detector event, `data` is the spec 6.1 object. */
function toGatewayEvent(emitted: EmittedEvent): AnyGatewayEvent {
  return { id: emitted.id, type: emitted.event.type, createdAt: new Date(emitted.at).toISOString(), data: emitted.event as unknown as Record<string, unknown> };
}
